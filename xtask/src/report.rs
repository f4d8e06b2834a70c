//! Turns criterion's JSON output into a markdown report.

use anyhow::{Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

#[derive(Deserialize)]
struct BenchmarkId {
    full_id: String,
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

/// Every benchmark's median by criterion's full id (`GROUP/FUNCTION/INPUT`, parts absent when
/// the benchmark has none), in nanoseconds.
type Medians = BTreeMap<String, f64>;

fn collect(dir: &Path, groups: &mut BTreeMap<String, Group>, medians: &mut Medians) -> Result<()> {
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
            medians.insert(id.full_id, est.median.point_estimate);
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
            collect(&path, groups, medians)?;
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

/// A peer library's timings of some of a suite's benchmarks, measured outside Rust by a
/// script under `benches/reference/` and committed there as `NAME_timings.json`:
///
/// ```json
/// {"suite": "algorithms", "peer": "Pinocchio 4.1.0 (C++ through its Python bindings)",
///  "measured": "2026-11-23", "machine": "x86_64, CPython 3.11.7", "note": "how it was timed",
///  "unit": "us", "rows": {"aba/ur5": 4.5, "aba/solo12": 13.3}}
/// ```
///
/// `rows` is keyed by criterion's benchmark id in the suite (`GROUP/INPUT`, or
/// `GROUP/FUNCTION/INPUT` when a group benchmarks several functions); `unit` is `ns`, `us` or
/// `ms`. The report puts each row beside sdrs's median with the ratio sdrs / peer.
#[derive(Deserialize)]
struct Peer {
    peer: String,
    measured: String,
    machine: String,
    note: String,
    unit: String,
    rows: BTreeMap<String, f64>,
}

/// The `suite` field alone, to pick a suite's peer files before reading them whole.
#[derive(Deserialize)]
struct SuiteOnly {
    suite: String,
}

/// The sections comparing `medians` with every peer file of `suite` in `dir`.
fn peer_sections(suite: &str, medians: &Medians, dir: &Path) -> Result<String> {
    let mut md = String::new();
    if !dir.is_dir() {
        return Ok(md);
    }
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    files.sort();
    for path in files {
        let is_peer = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("_timings.json"));
        if !is_peer {
            continue;
        }
        let text = std::fs::read_to_string(&path)?;
        // Only this suite's files are read whole: another suite's file never breaks this
        // report.
        let named: SuiteOnly = serde_json::from_str(&text)
            .with_context(|| format!("{} names no \"suite\"", path.display()))?;
        if named.suite != suite {
            continue;
        }
        let peer: Peer = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a peer timing file", path.display()))?;
        let scale = match peer.unit.as_str() {
            "ns" => 1.0,
            "us" => 1e3,
            "ms" => 1e6,
            other => anyhow::bail!("{}: unit {other:?} (allowed: ns, us, ms)", path.display()),
        };
        writeln!(md, "## Beside {}\n", peer.peer)?;
        writeln!(
            md,
            "From `{}`, measured {} ({}): {}.\n",
            path.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default(),
            peer.measured,
            peer.machine,
            peer.note
        )?;
        writeln!(
            md,
            "| benchmark | sdrs | peer | sdrs / peer |\n|---|---|---|---|"
        )?;
        for (id, &value) in &peer.rows {
            let theirs = value * scale;
            let (ours, ratio) = medians.get(id).map_or(("—".into(), "—".into()), |&t| {
                (format_time(t), format!("{:.2}", t / theirs))
            });
            writeln!(md, "| {id} | {ours} | {} | {ratio} |", format_time(theirs))?;
        }
        writeln!(md)?;
    }
    Ok(md)
}

/// Renders the report of `suite` from criterion's data directory, with the peer timings of
/// `peers` (see [`Peer`]) beside it.
pub fn render(suite: &str, data: &Path, quick: bool, peers: &Path) -> Result<String> {
    let mut groups = BTreeMap::new();
    let mut medians = Medians::new();
    collect(data, &mut groups, &mut medians)?;
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
    md.push_str(&peer_sections(suite, &medians, peers)?);
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::{Medians, log_log_slope, peer_sections};

    #[test]
    fn peer_rows_sit_beside_ours_with_the_ratio() {
        let dir = std::env::temp_dir().join(format!("sdrs-peers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = r#"{"suite": "algorithms", "peer": "Lib 1.0", "measured": "today",
            "machine": "here", "note": "a loop", "unit": "us",
            "rows": {"aba/ur5": 2.0, "aba/talos": 10.0}}"#;
        std::fs::write(dir.join("lib_timings.json"), file).unwrap();
        std::fs::write(dir.join("other.json"), "not a peer file").unwrap();
        let medians = Medians::from([("aba/ur5".to_string(), 3000.0)]);
        let md = peer_sections("algorithms", &medians, &dir).unwrap();
        assert!(md.contains("## Beside Lib 1.0"), "{md}");
        assert!(
            md.contains("| aba/ur5 | 3.00 µs | 2.00 µs | 1.50 |"),
            "{md}"
        );
        assert!(md.contains("| aba/talos | — | 10.00 µs | — |"), "{md}");
        assert!(
            peer_sections("dynamics", &medians, &dir)
                .unwrap()
                .is_empty()
        );
        // Another suite's incomplete file does not break this report; this suite's does.
        let incomplete = r#"{"suite": "contact-mesh", "peer": "Old", "rows": {}}"#;
        std::fs::write(dir.join("old_timings.json"), incomplete).unwrap();
        assert!(peer_sections("algorithms", &medians, &dir).is_ok());
        assert!(peer_sections("contact-mesh", &medians, &dir).is_err());
        std::fs::write(dir.join("bad_timings.json"), "{}").unwrap();
        assert!(peer_sections("algorithms", &medians, &dir).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every committed peer file is complete (a suite's report reads its files whole).
    #[test]
    fn committed_peer_files_are_complete() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/reference");
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.to_string_lossy().ends_with("_timings.json") {
                let text = std::fs::read_to_string(&path).unwrap();
                let peer: Result<super::Peer, _> = serde_json::from_str(&text);
                assert!(peer.is_ok(), "{}: {:?}", path.display(), peer.err());
                count += 1;
            }
        }
        assert!(count >= 3, "{count} peer files");
    }

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
