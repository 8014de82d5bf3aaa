//! How whole-side attack maps are computed (`Method`) and whether the engine uses them for king
//! safety (`KingSafety`): the names `Position` carries, below the code that computes the maps.

use kiki_core::simd::SimdLevel;

/// How to compute a [`SideAttacks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// The backend's lookups, piece by piece.
    PerPiece,
    /// Direction-wise fills over every piece at once, at a SIMD level.
    SetWise(SimdLevel),
}

impl Method {
    /// `per-piece`, `set-wise/portable`, `set-wise/avx2`, `set-wise/avx512`.
    pub fn name(self) -> String {
        match self {
            Method::PerPiece => "per-piece".to_string(),
            Method::SetWise(level) => format!("set-wise/{}", level.name()),
        }
    }

    /// Every method this build and CPU can run: per piece, then set-wise at each level.
    pub fn available() -> Vec<Method> {
        std::iter::once(Method::PerPiece)
            .chain(SimdLevel::available().into_iter().map(Method::SetWise))
            .collect()
    }
}

/// How the engine decides whether a square next to a king is safe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KingSafety {
    /// Each candidate square asks "is it attacked?" with the backend's lookups, cheapest
    /// kinds first.
    #[default]
    PerSquare,
    /// One whole-side attack map of the other colour (seen through the king), then a mask.
    AttackMap(Method),
}

impl KingSafety {
    /// `per-square`, or `attack-map/<method>`.
    pub fn name(self) -> String {
        match self {
            KingSafety::PerSquare => "per-square".to_string(),
            KingSafety::AttackMap(method) => format!("attack-map/{}", method.name()),
        }
    }
}
