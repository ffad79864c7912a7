//! Where the topology's counted flights ("+312 delivered") are written: in a rail under the
//! lanes, never over a card. Each badge sits as near as it can to the gap its flights cross,
//! flights to the right in the first row, flights back in the next; badges never overlap
//! one another, and one that finds no room is left out (its count is still on the canvas's
//! `data-aggregated`).

/// A box in CSS pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Box2 {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Box2 {
    pub fn right(self) -> f64 {
        self.x + self.w
    }
    pub fn bottom(self) -> f64 {
        self.y + self.h
    }
    /// Whether the two boxes share some area (touching edges do not count).
    pub fn overlaps(self, o: Box2) -> bool {
        self.x < o.right() && o.x < self.right() && self.y < o.bottom() && o.y < self.bottom()
    }
}

/// Room left between two badges of a row.
pub const BADGE_GAP: f64 = 6.0;

/// A badge to place: the x it wants its middle at, its width, and its preferred row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wanted {
    pub x: f64,
    pub w: f64,
    pub row: usize,
}

/// Places each badge (in the order given: the most important first) in one of the rail's
/// rows of height `row_h`: the free spot nearest to where it wants to be, its own row
/// first. `None` for a badge that fits nowhere.
pub fn lay_out(rail: Box2, row_h: f64, wanted: &[Wanted]) -> Vec<Option<Box2>> {
    let rows = if row_h > 0.0 {
        (rail.h / row_h).floor().max(0.0) as usize
    } else {
        0
    };
    let mut placed: Vec<Vec<Box2>> = vec![Vec::new(); rows];
    wanted
        .iter()
        .map(|w| {
            let order = (0..rows).map(|i| (w.row.min(rows.saturating_sub(1)) + i) % rows.max(1));
            for row in order {
                let y = rail.y + row as f64 * row_h;
                if let Some(x) = free_spot(rail, &placed[row], w) {
                    let b = Box2 {
                        x,
                        y,
                        w: w.w,
                        h: row_h,
                    };
                    placed[row].push(b);
                    return Some(b);
                }
            }
            None
        })
        .collect()
}

/// The left edge nearest to `w.x - w.w / 2` at which a badge of width `w.w` fits in the rail
/// beside the badges already in its row.
fn free_spot(rail: Box2, row: &[Box2], w: &Wanted) -> Option<f64> {
    if w.w > rail.w {
        return None;
    }
    let ideal = (w.x - w.w / 2.0).clamp(rail.x, rail.right() - w.w);
    let candidates = std::iter::once(ideal).chain(
        row.iter()
            .flat_map(|b| [b.right() + BADGE_GAP, b.x - BADGE_GAP - w.w]),
    );
    candidates
        .filter(|&x| x >= rail.x - 1e-9 && x + w.w <= rail.right() + 1e-9)
        .filter(|&x| {
            row.iter()
                .all(|b| x + w.w + BADGE_GAP <= b.x + 1e-9 || b.right() + BADGE_GAP <= x + 1e-9)
        })
        .min_by(|a, b| (a - ideal).abs().total_cmp(&(b - ideal).abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RAIL: Box2 = Box2 {
        x: 10.0,
        y: 100.0,
        w: 600.0,
        h: 40.0,
    };

    fn want(x: f64, w: f64, row: usize) -> Wanted {
        Wanted { x, w, row }
    }

    #[test]
    fn a_lone_badge_sits_centred_on_its_gap_in_its_row() {
        let out = lay_out(RAIL, 20.0, &[want(200.0, 100.0, 1)]);
        assert_eq!(
            out,
            vec![Some(Box2 {
                x: 150.0,
                y: 120.0,
                w: 100.0,
                h: 20.0
            })]
        );
    }

    #[test]
    fn badges_never_overlap_nor_leave_the_rail() {
        let wanted: Vec<Wanted> = (0..30)
            .map(|i| {
                want(
                    f64::from(i % 4) * 150.0 + 20.0,
                    60.0 + f64::from(i % 3) * 30.0,
                    i as usize % 2,
                )
            })
            .collect();
        let out = lay_out(RAIL, 20.0, &wanted);
        let boxes: Vec<Box2> = out.iter().flatten().copied().collect();
        assert!(boxes.len() >= 6, "room for several: {boxes:?}");
        assert!(boxes.len() < wanted.len(), "not all of them fit");
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.x >= RAIL.x && a.right() <= RAIL.right(), "{a:?}");
            assert!(a.y >= RAIL.y && a.bottom() <= RAIL.bottom(), "{a:?}");
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(*b), "{a:?} overlaps {b:?}");
            }
        }
    }

    #[test]
    fn a_crowded_row_sends_the_next_badge_beside_or_to_the_other_row() {
        let out = lay_out(RAIL, 20.0, &[want(300.0, 200.0, 0), want(300.0, 200.0, 0)]);
        let (a, b) = (out[0].expect("fits"), out[1].expect("fits"));
        assert!(!a.overlaps(b));
        assert_eq!(a.y, b.y, "there was room beside it in its own row");
        let full: Vec<Wanted> = (0..5).map(|_| want(160.0, 290.0, 0)).collect();
        let out = lay_out(RAIL, 20.0, &full);
        assert_eq!(out.iter().flatten().filter(|b| b.y == 100.0).count(), 2);
        assert_eq!(out.iter().flatten().filter(|b| b.y == 120.0).count(), 2);
        assert_eq!(out[4], None, "two rows of two: the fifth has no room");
    }

    #[test]
    fn no_room_means_no_badge() {
        assert_eq!(lay_out(RAIL, 50.0, &[want(0.0, 10.0, 0)]), vec![None]);
        assert_eq!(lay_out(RAIL, 20.0, &[want(0.0, 700.0, 0)]), vec![None]);
        assert_eq!(lay_out(RAIL, 0.0, &[want(0.0, 10.0, 0)]), vec![None]);
    }
}
