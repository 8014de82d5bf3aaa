//! Bonanza-style KPP + KKP: for each king square, a value for every pair of pieces (the
//! symmetric half, `kpp[king][i][j]` with `j ≤ i`, int16, ≈ 194 MB), and for each pair of
//! kings a value per piece (`kkp`, ≈ 20 MB). A move updates by difference: each changed
//! piece's pairs with every other piece (≈ 38 scattered reads per view); a king move rebuilds
//! its view (≈ 700 reads) and the KKP sum.

use super::features::{flip, Change, Feature, FeatureList, FEATURE_COUNT, MAX_ACTIVE};
use super::{small_weights, Evaluator};
use crate::position::{Move, Position};
use kiki_core::backend::Backend;
use kiki_core::pages::{PageBuffer, Pages};
use kiki_core::types::Color;

/// Pairs per king square in the symmetric half (the diagonal included).
const PAIRS: usize = FEATURE_COUNT * (FEATURE_COUNT + 1) / 2;
const KPP_BYTES: usize = 81 * PAIRS * 2;
const KKP_BYTES: usize = 81 * 81 * FEATURE_COUNT * 2;
/// Both tables' bytes.
pub const TABLE_BYTES: usize = KPP_BYTES + KKP_BYTES;

const SEED: u64 = 0x4B50_5000_6B69_6B69;

pub struct KppWeights {
    pub(super) kpp: PageBuffer,
    pub(super) kkp: PageBuffer,
}

fn as_i16(buffer: &PageBuffer) -> &[i16] {
    let words = buffer.as_slice();
    // SAFETY: the words' bytes reinterpreted as four times as many i16 (less alignment).
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const i16, words.len() * 4) }
}

impl KppWeights {
    pub fn new(pages: Pages) -> KppWeights {
        KppWeights {
            // Rounded up to whole words: the buffer holds u64s.
            kpp: PageBuffer::new(KPP_BYTES.next_multiple_of(8), pages, |i| {
                small_weights(SEED, i)
            }),
            kkp: PageBuffer::new(KKP_BYTES, pages, |i| small_weights(SEED + 1, i)),
        }
    }

    #[inline(always)]
    fn kpp(&self, king: usize, i: Feature, j: Feature) -> i32 {
        let (high, low) = if i >= j { (i, j) } else { (j, i) };
        let (high, low) = (high as usize, low as usize);
        as_i16(&self.kpp)[king * PAIRS + high * (high + 1) / 2 + low] as i32
    }

    #[inline(always)]
    fn kkp(&self, black_king: usize, white_king: usize, feature: Feature) -> i32 {
        as_i16(&self.kkp)[(black_king * 81 + white_king) * FEATURE_COUNT + feature as usize] as i32
    }
}

/// One ply's sums and what they were built from.
#[derive(Clone, Copy)]
struct Ply {
    list: FeatureList,
    /// Black's king square and White's king square as White sees it (turned).
    kings: [usize; 2],
    /// `[view]`: Σ over pairs of that view's KPP.
    kpp: [i32; 2],
    kkp: i32,
}

pub struct KppState<'w> {
    weights: &'w KppWeights,
    stack: Vec<Ply>,
    lines: u64,
}

impl<'w> KppState<'w> {
    pub fn new(weights: &'w KppWeights) -> KppState<'w> {
        KppState {
            weights,
            stack: Vec::with_capacity(256),
            lines: 0,
        }
    }

    /// The current position's sums: each view's KPP, then KKP (for tests against a rebuild).
    #[cfg(test)]
    pub(crate) fn sums(&self) -> [i32; 3] {
        self.stack
            .last()
            .map_or([0; 3], |ply| [ply.kpp[0], ply.kpp[1], ply.kkp])
    }

    /// Feature `f` as `view` sees it.
    #[inline(always)]
    fn see(view: usize, f: Feature) -> Feature {
        if view == 0 {
            f
        } else {
            flip(f)
        }
    }

    fn pair(&self, ply: &Ply, view: usize, i: Feature, j: Feature) -> i32 {
        self.weights
            .kpp(ply.kings[view], Self::see(view, i), Self::see(view, j))
    }

    fn refresh_kpp(&mut self, ply: &mut Ply, view: usize) {
        let features = ply.list.as_slice();
        let mut sum = 0;
        for (n, &i) in features.iter().enumerate() {
            for &j in &features[..n] {
                sum += self.pair(ply, view, i, j);
            }
        }
        self.lines += (features.len() * features.len().saturating_sub(1) / 2) as u64;
        ply.kpp[view] = sum;
    }

    fn refresh_kkp(&mut self, ply: &mut Ply) {
        let white_king = 80 - ply.kings[1];
        ply.kkp = ply
            .list
            .as_slice()
            .iter()
            .map(|&f| self.weights.kkp(ply.kings[0], white_king, f))
            .sum();
        self.lines += ply.list.len as u64;
    }

    /// `view`'s KPP difference for `change`, against the pieces the move keeps (`kept`: the
    /// parent's list without the removed features).
    fn kpp_delta(&mut self, ply: &Ply, view: usize, change: &Change, kept: &[Feature]) -> i32 {
        let mut delta = 0;
        for (side, features) in [(1, change.added()), (-1, change.removed())] {
            for (n, &f) in features.iter().enumerate() {
                let mut sum: i32 = kept.iter().map(|&x| self.pair(ply, view, f, x)).sum();
                sum += features[..n]
                    .iter()
                    .map(|&g| self.pair(ply, view, f, g))
                    .sum::<i32>();
                delta += side * sum;
                self.lines += (kept.len() + n) as u64;
            }
        }
        delta
    }
}

impl Evaluator for KppState<'_> {
    fn reset<B: Backend>(&mut self, pos: &Position<B>) {
        self.stack.clear();
        let square = |color| pos.king_square(color).map_or(0, |sq| sq.index());
        let mut ply = Ply {
            list: FeatureList::of(pos),
            kings: [square(Color::Black), 80 - square(Color::White)],
            kpp: [0; 2],
            kkp: 0,
        };
        self.refresh_kpp(&mut ply, 0);
        self.refresh_kpp(&mut ply, 1);
        self.refresh_kkp(&mut ply);
        self.stack.push(ply);
    }

    fn push<B: Backend>(&mut self, pos: &Position<B>, mv: Move) {
        let change = Change::of(pos, mv);
        let mut ply = *self.stack.last().expect("reset before push");
        let mut kept = [0; MAX_ACTIVE];
        let mut kept_len = 0;
        for &f in ply.list.as_slice() {
            if !change.removed().contains(&f) {
                kept[kept_len] = f;
                kept_len += 1;
            }
        }
        let kept = &kept[..kept_len];
        if let Some(color) = change.king_moved {
            let to = mv.to().index();
            ply.kings[color.index()] = if color == Color::Black { to } else { 80 - to };
        }
        for view in 0..2 {
            if change.king_moved.map(Color::index) != Some(view) {
                ply.kpp[view] += self.kpp_delta(&ply, view, &change, kept);
            }
        }
        ply.list.apply(&change);
        if let Some(color) = change.king_moved {
            self.refresh_kpp(&mut ply, color.index());
            self.refresh_kkp(&mut ply);
        } else {
            let white_king = 80 - ply.kings[1];
            let kkp = |f: Feature| self.weights.kkp(ply.kings[0], white_king, f);
            ply.kkp += change.added().iter().map(|&f| kkp(f)).sum::<i32>()
                - change.removed().iter().map(|&f| kkp(f)).sum::<i32>();
            self.lines += (change.added().len() + change.removed().len()) as u64;
        }
        self.stack.push(ply);
    }

    fn push_null(&mut self) {
        let ply = *self.stack.last().expect("reset before push");
        self.stack.push(ply);
    }

    fn pop(&mut self) {
        self.stack.pop();
    }

    fn evaluate<B: Backend>(&mut self, pos: &Position<B>) -> i32 {
        let top = self.stack.last().expect("reset before evaluate");
        let black = top.kpp[0] - top.kpp[1] + top.kkp;
        match pos.side_to_move() {
            Color::Black => black,
            Color::White => -black,
        }
    }

    fn lines_read(&self) -> u64 {
        self.lines
    }
}

/// The value from scratch, for tests of the incremental updates.
pub fn evaluate_from_scratch<B: Backend>(weights: &KppWeights, pos: &Position<B>) -> i32 {
    let mut state = KppState::new(weights);
    state.reset(pos);
    state.evaluate(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_bytes_are_the_symmetric_half_and_kkp() {
        assert_eq!(KPP_BYTES, 194_226_012);
        assert_eq!(KKP_BYTES, 20_312_856);
    }
}
