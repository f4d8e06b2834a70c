//! Turns criterion's JSON output into a markdown report.

use anyhow::{Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

#[derive(Deserialize)]
struct BenchmarkId {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
}

#[derive(Deserialize)]
struct PointEstimate {
    point_estimate: f64,
}

#[derive(Deserialize)]
struct Estimates {
    median: PointEstimate,
}

/// File in a suite's criterion directory whose markdown is appended to the report
/// (`sdrs_benches::report_section` writes it).
const EXTRA: &str = "extra.md";

/// One group's medians: input → function → nanoseconds.
type Group = BTreeMap<String, BTreeMap<String, f64>>;

fn collect(dir: &Path, groups: &mut BTreeMap<String, Group>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if !path.is_dir() {
            continue;
        }
        let id_file = path.join("new").join("benchmark.json");
        if id_file.exists() {
            let id: BenchmarkId = serde_json::from_str(&std::fs::read_to_string(&id_file)?)?;
            let est: Estimates = serde_json::from_str(&std::fs::read_to_string(
                path.join("new").join("estimates.json"),
            )?)?;
            groups
                .entry(id.group_id)
                .or_default()
                .entry(id.value_str.unwrap_or_else(|| "-".into()))
                .or_default()
                .insert(
                    id.function_id.unwrap_or_else(|| "time".into()),
                    est.median.point_estimate,
                );
        } else {
            collect(&path, groups)?;
        }
    }
    Ok(())
}

fn format_time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// Least-squares slope of log(time) against log(input) over the numeric inputs.
pub fn log_log_slope(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let logs: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.ln())).collect();
    let n = logs.len() as f64;
    let mx = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// Renders the report of `suite` from criterion's data directory.
pub fn render(suite: &str, data: &Path, quick: bool) -> Result<String> {
    let mut groups = BTreeMap::new();
    collect(data, &mut groups)?;
    let mut md = String::new();
    writeln!(md, "# Benchmark report: `{suite}`\n")?;
    writeln!(
        md,
        "Median wall time per iteration (criterion{}). Produced by `cargo xtask bench {suite}{}`.\n",
        if quick { ", quick mode" } else { "" },
        if quick { " --quick" } else { "" }
    )?;
    for (name, rows) in &groups {
        let mut functions: Vec<&String> = rows.values().flat_map(|r| r.keys()).collect();
        functions.sort();
        functions.dedup();
        let mut inputs: Vec<&String> = rows.keys().collect();
        inputs.sort_by(|a, b| match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) => x.total_cmp(&y),
            _ => a.cmp(b),
        });
        writeln!(md, "## {name}\n")?;
        writeln!(
            md,
            "| input | {} |",
            functions
                .iter()
                .map(|f| f.as_str())
                .collect::<Vec<_>>()
                .join(" | ")
        )?;
        writeln!(md, "|---|{}", "---|".repeat(functions.len()))?;
        for input in &inputs {
            let cells: Vec<String> = functions
                .iter()
                .map(|f| rows[*input].get(*f).map_or("—".into(), |&t| format_time(t)))
                .collect();
            writeln!(md, "| {input} | {} |", cells.join(" | "))?;
        }
        let slopes: Vec<String> = functions
            .iter()
            .map(|f| {
                let points: Vec<(f64, f64)> = inputs
                    .iter()
                    .filter_map(|i| Some((i.parse::<f64>().ok()?, *rows[*i].get(*f)?)))
                    .collect();
                log_log_slope(&points).map_or("—".into(), |s| format!("{s:.2}"))
            })
            .collect();
        if slopes.iter().any(|s| s != "—") {
            writeln!(md, "| log-log slope | {} |", slopes.join(" | "))?;
        }
        writeln!(md)?;
    }
    // Sections a suite wrote itself (measurements criterion does not make, e.g. breakdowns).
    let extra = data.join(EXTRA);
    if extra.exists() {
        md.push_str(&std::fs::read_to_string(&extra)?);
    }
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::log_log_slope;

    #[test]
    fn slope_of_a_power_law_is_its_exponent() {
        let pts: Vec<(f64, f64)> = [10.0, 100.0, 1000.0]
            .iter()
            .map(|&x: &f64| (x, 3.0 * x.powf(1.5)))
            .collect();
        assert!((log_log_slope(&pts).unwrap() - 1.5).abs() < 1e-12);
        assert!(log_log_slope(&pts[..1]).is_none());
    }
}
