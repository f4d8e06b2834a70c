//! Summary statistics of per-step measurements.

/// Mean, median, 95th percentile, minimum and maximum of a sample.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (the mean of the two middle values for an even count).
    pub median: f64,
    /// 95th percentile by the nearest-rank method (the smallest value with at least 95% of
    /// the sample at or below it).
    pub p95: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Summary {
    /// The summary of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
        };
        let rank = (0.95 * n as f64).ceil() as usize;
        Some(Self {
            mean: sorted.iter().sum::<f64>() / n as f64,
            median,
            p95: sorted[rank.clamp(1, n) - 1],
            min: sorted[0],
            max: sorted[n - 1],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Summary;

    #[test]
    fn summary_of_one_to_twenty() {
        let values: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        let s = Summary::of(&values).unwrap();
        assert_eq!(
            (s.mean, s.median, s.p95, s.min, s.max),
            (10.5, 10.5, 19.0, 1.0, 20.0)
        );
    }

    #[test]
    fn summary_of_odd_and_single_samples() {
        let s = Summary::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.p95), (2.0, 3.0));
        let s = Summary::of(&[5.0]).unwrap();
        assert_eq!(
            (s.mean, s.median, s.p95, s.min, s.max),
            (5.0, 5.0, 5.0, 5.0, 5.0)
        );
        assert!(Summary::of(&[]).is_none());
    }
}
