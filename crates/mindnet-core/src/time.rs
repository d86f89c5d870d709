//! UTC timestamps as RFC 3339 text, without a date crate: the logs, the
//! store's record and `recent_changes` need whole seconds in UTC and
//! nothing of calendars or zones beyond an offset to subtract.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch, now (0 on a clock before 1970).
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// When the file at `path` last changed, in seconds since the epoch
/// (`None` when its time cannot be read).
pub fn modified_secs(path: &std::path::Path) -> Option<u64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(modified.duration_since(UNIX_EPOCH).ok()?.as_secs())
}

/// Now, as RFC 3339 (UTC): the one clock of records, logs and reports.
pub fn now() -> String {
    rfc3339(unix_now())
}

/// `2026-12-01T17:30:54Z` for seconds since the epoch.
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Seconds since the epoch of `2026-12-01`, `2026-12-01T17:30`,
/// `2026-12-01T17:30:54Z` or `2026-12-01 17:30:54+01:00` (a date alone is
/// its midnight, UTC). `None` for anything else, or a time before 1970.
pub fn parse_rfc3339(s: &str) -> Option<u64> {
    let s = s.trim();
    let num = |t: &str, len: usize| -> Option<i64> {
        (t.len() == len && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let (date, rest) = s.split_at_checked(10)?;
    let mut parts = date.split('-');
    let y = num(parts.next()?, 4)?;
    let m = num(parts.next()?, 2)?;
    let d = num(parts.next()?, 2)?;
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    let mut secs = days_from_civil(y, m, d) * 86_400;
    if !rest.is_empty() {
        let rest = rest.strip_prefix(['T', 't', ' '])?;
        // The offset starts at `Z`, `+` or `-` after the time.
        let cut = rest.find(['Z', 'z', '+', '-']).unwrap_or(rest.len());
        let (time, zone) = rest.split_at(cut);
        let time = time.split('.').next()?; // fractions of a second are dropped
        let mut hms = time.split(':');
        let h = num(hms.next()?, 2)?;
        let min = num(hms.next()?, 2)?;
        let sec = match hms.next() {
            Some(t) => num(t, 2)?,
            None => 0,
        };
        if hms.next().is_some() || h > 23 || min > 59 || sec > 60 {
            return None;
        }
        secs += h * 3600 + min * 60 + sec;
        match zone {
            "" | "Z" | "z" => {}
            _ => {
                let sign = if zone.starts_with('-') { -1 } else { 1 };
                let (oh, om) = zone[1..].split_once(':')?;
                let offset = num(oh, 2)? * 3600 + num(om, 2)? * 60;
                secs -= sign * offset;
            }
        }
    }
    u64::try_from(secs).ok()
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's algorithms between civil dates and days since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for secs in [0, 951_782_400, 1_764_610_254, 4_102_444_799] {
            assert_eq!(parse_rfc3339(&rfc3339(secs)), Some(secs), "{secs}");
        }
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn forms() {
        let t = parse_rfc3339("2026-12-01T17:30:54Z").unwrap();
        assert_eq!(parse_rfc3339("2026-12-01 18:30:54+01:00"), Some(t));
        assert_eq!(parse_rfc3339("2026-12-01T17:30:54.250Z"), Some(t));
        assert_eq!(parse_rfc3339("2026-12-01T17:30"), Some(t - 54));
        assert_eq!(
            parse_rfc3339("2026-12-01"),
            Some(t - 17 * 3600 - 30 * 60 - 54)
        );
        for bad in [
            "",
            "2026-13-01",
            "2026-02-30",
            "2026-12-01T25:00",
            "yesterday",
            "1969-12-31",
            "2026-12-01T10:00+1",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
