//! `mindnet tune`'s report as text.

use mindnet_app::tune::TuneReport;
use std::fmt::Write;

pub fn tune_text(r: &TuneReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<28} {:>5}  {:>15}  {:>15}  {:>15}",
        "set", "n", "no graph R5/MRR", "before R5/MRR", "after R5/MRR"
    );
    for s in &r.sets {
        let pair = |x: &mindnet_app::tune::SetScore| format!("{:.3}/{:.3}", x.recall_5, x.mrr);
        let _ = writeln!(
            out,
            "{:<28} {:>5}  {:>15}  {:>15}  {:>15}",
            s.name,
            s.questions,
            pair(&s.no_graph),
            pair(&s.before),
            pair(&s.after)
        );
    }
    let _ = writeln!(
        out,
        "\n{} folds (objective: mean over sets of (recall@5 + MRR) / 2):",
        r.folds.len()
    );
    for f in &r.folds {
        let _ = writeln!(
            out,
            "  fold {}: train {:.4} → {:.4}, held-out {:.4} → {:.4}",
            f.fold + 1,
            f.train_before,
            f.train_after,
            f.held_out_before,
            f.held_out_after
        );
    }
    let _ = writeln!(
        out,
        "  held-out mean {:.4} → {:.4} ({:+.4})\n",
        r.held_out_before,
        r.held_out_after,
        r.held_out_after - r.held_out_before
    );
    if !r.confirmed {
        let _ = writeln!(
            out,
            "no change proposed: the held-out folds do not confirm a gain\n"
        );
    }
    let _ = writeln!(out, "{:<24} {:>8} {:>8}", "weight", "before", "after");
    for (name, before) in &r.before {
        let after = r.after.get(name).copied().unwrap_or(*before);
        let mark = if (after - before).abs() > 1e-12 {
            " *"
        } else {
            ""
        };
        let _ = writeln!(out, "{name:<24} {before:>8.3} {after:>8.3}{mark}");
    }
    let _ = writeln!(out, "\n{} trials", r.trials);
    let _ = writeln!(out, "proposal: {}", r.proposal.display());
    match (&r.refused, &r.written) {
        (Some(why), _) => {
            let _ = writeln!(out, "not written: {why}");
        }
        (None, Some(p)) => {
            let _ = writeln!(out, "written to {}", p.display());
        }
        (None, None) => {
            let _ = writeln!(out, "the active file is unchanged (--write replaces it)");
        }
    }
    out
}
