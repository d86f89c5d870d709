//! This process's memory, read from Linux's `/proc/self/status` (`None`
//! elsewhere): the import logs it at debug level, and the benchmarks report
//! it beside their timings.

/// Peak resident memory of this process (Linux `VmHWM`), in MB.
pub fn peak_rss_mb() -> Option<f64> {
    status_mb("VmHWM:")
}

/// Resident memory of this process now (Linux `VmRSS`), in MB.
pub fn rss_mb() -> Option<f64> {
    status_mb("VmRSS:")
}

/// Resident memory now, split: the process's own (heap, stacks) and pages
/// of files mapped into it (Qdrant's segments), which the kernel can drop.
pub fn rss_split() -> String {
    format!(
        "{:.0} MB own + {:.0} MB mapped files",
        status_mb("RssAnon:").unwrap_or(f64::NAN),
        status_mb("RssFile:").unwrap_or(f64::NAN)
    )
}

fn status_mb(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
