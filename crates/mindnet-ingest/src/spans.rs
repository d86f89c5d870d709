//! A set of byte ranges of a note (code, comments, links), asked once per
//! link or bracket whether an offset lies in one of them. Sorted and merged,
//! it answers in O(log n); scanning every range made a note with thousands of
//! links take quadratic time (found by the fuzzer: 4,000 links took 2.8 s).

use std::ops::Range;

#[derive(Debug, Clone, Default)]
pub struct Spans {
    /// Disjoint, non-empty, sorted by start.
    merged: Vec<Range<usize>>,
}

impl Spans {
    pub fn new(ranges: impl IntoIterator<Item = Range<usize>>) -> Spans {
        let mut all: Vec<Range<usize>> = ranges.into_iter().filter(|r| r.start < r.end).collect();
        all.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(all.len());
        for r in all {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        Spans { merged }
    }

    /// The merged range holding `offset`, if one does.
    fn around(&self, offset: usize) -> Option<&Range<usize>> {
        let i = self.merged.partition_point(|r| r.end <= offset);
        self.merged.get(i).filter(|r| r.start <= offset)
    }

    pub fn contains(&self, offset: usize) -> bool {
        self.around(offset).is_some()
    }

    /// Whether `range` lies wholly inside the set.
    pub fn covers(&self, range: &Range<usize>) -> bool {
        self.around(range.start).is_some_and(|r| range.end <= r.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_a_scan_of_every_range_would() {
        let ranges = vec![10..20, 15..30, 40..41, 5..5, 50..60];
        let spans = Spans::new(ranges.clone());
        for offset in 0..70 {
            let scan = ranges.iter().any(|r| r.contains(&offset));
            assert_eq!(spans.contains(offset), scan, "offset {offset}");
        }
        assert!(spans.covers(&(12..29)));
        assert!(!spans.covers(&(12..31)));
        assert!(!spans.covers(&(35..45)));
    }
}
