//! The three hand layouts against plain `[u8; 7]` counts: every operation on every valid hand of
//! one side, superiority on every single-field change of every hand and on 10,000,000 seeded
//! random pairs.

use kiki_engine::hands::{ByteHand, GuardedHand, HandLayout, PackedHand};
use kiki_engine::position::PieceKind;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const MAX: [u8; 7] = PieceKind::HAND_MAX;

/// Every valid hand of one side: 19 · 5⁴ · 3² = 106,875.
fn all_hands() -> Vec<[u8; 7]> {
    let mut hands = vec![[0u8; 7]];
    for (i, &max) in MAX.iter().enumerate() {
        hands = hands
            .into_iter()
            .flat_map(|h| {
                (0..=max).map(move |n| {
                    let mut h = h;
                    h[i] = n;
                    h
                })
            })
            .collect();
    }
    hands
}

fn reference_superior(a: [u8; 7], b: [u8; 7]) -> bool {
    a.iter().zip(&b).all(|(x, y)| x >= y)
}

fn check_every_operation<H: HandLayout>() {
    let hands = all_hands();
    assert_eq!(hands.len(), 19 * 5 * 5 * 5 * 5 * 3 * 3);
    assert!(H::EMPTY.is_empty());
    assert_eq!(H::EMPTY.to_counts(), [0; 7]);
    assert_eq!(H::from_counts([0; 7]), H::EMPTY);
    let mut adds = 0u32;
    let mut removes = 0u32;
    for &counts in &hands {
        let hand = H::from_counts(counts);
        assert_eq!(hand.to_counts(), counts, "{}: round trip", H::NAME);
        assert_eq!(hand.is_empty(), counts == [0; 7], "{}: {counts:?}", H::NAME);
        assert!(hand.is_superior_or_equal(hand), "{}: {counts:?}", H::NAME);
        for (i, &kind) in PieceKind::HAND.iter().enumerate() {
            assert_eq!(
                hand.count(kind),
                counts[i],
                "{}: {counts:?} {kind:?}",
                H::NAME
            );
            assert_eq!(
                hand.has(kind),
                counts[i] > 0,
                "{}: {counts:?} {kind:?}",
                H::NAME
            );
            if counts[i] < MAX[i] {
                let mut more = counts;
                more[i] += 1;
                let mut added = hand;
                added.add(kind);
                // The encoding is canonical: adding gives exactly the hand built from counts.
                assert_eq!(
                    added,
                    H::from_counts(more),
                    "{}: {counts:?} + {kind:?}",
                    H::NAME
                );
                assert!(added.is_superior_or_equal(hand));
                assert!(!hand.is_superior_or_equal(added));
                let mut back = added;
                back.remove(kind);
                assert_eq!(back, hand);
                adds += 1;
            }
            if counts[i] > 0 {
                let mut fewer = counts;
                fewer[i] -= 1;
                let mut removed = hand;
                removed.remove(kind);
                assert_eq!(
                    removed,
                    H::from_counts(fewer),
                    "{}: {counts:?} - {kind:?}",
                    H::NAME
                );
                assert_eq!(removed.count(kind), fewer[i]);
                removes += 1;
            }
        }
    }
    assert_eq!(adds, removes);
    assert!(adds > 500_000);
}

/// Superiority for every hand against every hand that differs from it in one field, any value.
fn check_single_field_pairs<H: HandLayout>() {
    let mut pairs = 0u64;
    for counts in all_hands() {
        let a = H::from_counts(counts);
        for i in 0..7 {
            for n in 0..=MAX[i] {
                let mut other = counts;
                other[i] = n;
                let b = H::from_counts(other);
                assert_eq!(
                    a.is_superior_or_equal(b),
                    counts[i] >= n,
                    "{}: {counts:?} vs {other:?}",
                    H::NAME
                );
                assert_eq!(b.is_superior_or_equal(a), n >= counts[i]);
                pairs += 1;
            }
        }
    }
    assert_eq!(pairs, 106_875 * (19 + 4 * 5 + 2 * 3));
}

/// One count for field `i`: mostly uniform, often an edge (0 or the maximum).
fn draw_count(rng: &mut Xoshiro256PlusPlus, i: usize) -> u8 {
    match rng.random_range(0..4u32) {
        0 => 0,
        1 => MAX[i],
        _ => rng.random_range(0..=MAX[i]),
    }
}

fn draw_hand(rng: &mut Xoshiro256PlusPlus) -> [u8; 7] {
    std::array::from_fn(|i| draw_count(rng, i))
}

/// A seeded mix of pairs: independent, equal, one field changed, `b` below `a` everywhere (so
/// the answer is often true) and `b` below `a` but for one field raised by one.
fn random_pairs(seed: u64, n: usize) -> Vec<([u8; 7], [u8; 7])> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let a = draw_hand(&mut rng);
            let b = match rng.random_range(0..5u32) {
                0 => draw_hand(&mut rng),
                1 => a,
                2 => {
                    let mut b = a;
                    let i = rng.random_range(0..7usize);
                    b[i] = draw_count(&mut rng, i);
                    b
                }
                3 => std::array::from_fn(|i| rng.random_range(0..=a[i])),
                _ => {
                    let mut b: [u8; 7] = std::array::from_fn(|i| rng.random_range(0..=a[i]));
                    let i = rng.random_range(0..7usize);
                    b[i] = (a[i] + 1).min(MAX[i]);
                    b
                }
            };
            (a, b)
        })
        .collect()
}

#[test]
fn every_layout_does_every_operation_on_every_hand() {
    check_every_operation::<PackedHand>();
    check_every_operation::<GuardedHand>();
    check_every_operation::<ByteHand>();
}

#[test]
fn every_layout_compares_every_single_field_change() {
    check_single_field_pairs::<PackedHand>();
    check_single_field_pairs::<GuardedHand>();
    check_single_field_pairs::<ByteHand>();
}

#[test]
fn every_layout_compares_ten_million_random_pairs() {
    let pairs = random_pairs(0x4841_4e44, 10_000_000);
    let (mut trues, mut equal) = (0u32, 0u32);
    for &(a, b) in &pairs {
        let expected = reference_superior(a, b);
        trues += expected as u32;
        equal += (a == b) as u32;
        let ok = PackedHand::from_counts(a).is_superior_or_equal(PackedHand::from_counts(b))
            == expected
            && GuardedHand::from_counts(a).is_superior_or_equal(GuardedHand::from_counts(b))
                == expected
            && ByteHand::from_counts(a).is_superior_or_equal(ByteHand::from_counts(b)) == expected;
        assert!(ok, "{a:?} vs {b:?}: expected {expected}");
    }
    // The mix really exercises both answers and the equal case.
    assert!(
        trues > 3_000_000 && trues < 7_000_000,
        "{trues} true of 10M"
    );
    assert!(equal > 2_000_000, "{equal} equal pairs");
}

#[test]
fn guarded_borrow_mask_is_what_the_seed_describes() {
    // Seven guards, 28 bits: the top field (rook) ends at bit 26, its guard is bit 27.
    assert_eq!(GuardedHand::BORROW_MASK.count_ones(), 7);
    assert_eq!(32 - GuardedHand::BORROW_MASK.leading_zeros(), 28);
    let full = GuardedHand::from_counts(MAX);
    assert_eq!(full.0 & GuardedHand::BORROW_MASK, 0);
    assert_eq!(full.0 >> 28, 0);
}
