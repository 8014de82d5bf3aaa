//! Byte counts (and plain numbers) as text, one function per output format the reports print.

/// `8,253,440 B (7.87 MiB)`: the exact count, digits grouped, and a rounded unit beside it;
/// for table sizes (`kiki backends`, the machine's caches, the report index).
pub fn exact_bytes(bytes: usize) -> String {
    let mut grouped = String::new();
    let digits = bytes.to_string();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    let unit = if bytes >= 1 << 20 {
        format!("{:.2} MiB", bytes as f64 / (1u64 << 20) as f64)
    } else if bytes >= 1 << 10 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} B")
    };
    format!("{grouped} B ({unit})")
}

/// `16 KiB`, `1.5 MiB`, `60.75 MiB`, `1.000 GiB`, `0 B`: up to two decimals of MiB, one of KiB,
/// trailing zeros trimmed (not for GiB); for sizes in findings and tables (E6, E7).
pub fn rounded_bytes(bytes: f64) -> String {
    if bytes >= (1u64 << 30) as f64 {
        format!("{:.3} GiB", bytes / (1u64 << 30) as f64)
    } else if bytes >= (1 << 20) as f64 {
        trim_zeros(format!("{:.2}", bytes / (1 << 20) as f64)) + " MiB"
    } else if bytes >= 1024.0 {
        trim_zeros(format!("{:.1}", bytes / 1024.0)) + " KiB"
    } else {
        format!("{bytes:.0} B")
    }
}

/// `32 KiB`, `1.25 MiB`, `60.8 MiB`, `512 B`: three significant digits at most; for plot ticks
/// and short labels (cache geometries in E8). Empty for a non-finite value, as a tick has none.
pub fn compact_bytes(bytes: f64) -> String {
    if !bytes.is_finite() {
        return String::new();
    }
    if bytes.abs() >= 1024.0 {
        let units = ["KiB", "MiB", "GiB", "TiB"];
        let mut scaled = bytes / 1024.0;
        let mut unit = 0;
        while scaled.abs() >= 1024.0 && unit + 1 < units.len() {
            scaled /= 1024.0;
            unit += 1;
        }
        return format!("{} {}", three_significant(scaled), units[unit]);
    }
    format!("{} B", three_significant(bytes))
}

/// At most three significant digits (more below 0.01, up to 8 decimals), no trailing zeros.
pub fn three_significant(value: f64) -> String {
    let magnitude = value.abs();
    let decimals = if magnitude >= 100.0 || magnitude == 0.0 {
        0
    } else if magnitude >= 10.0 {
        1
    } else if magnitude >= 1.0 {
        2
    } else {
        (3.0 - magnitude.log10().floor()).clamp(2.0, 8.0) as usize
    };
    trim_zeros(format!("{value:.decimals$}"))
}

fn trim_zeros(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes_groups_and_scales() {
        assert_eq!(exact_bytes(414_720), "414,720 B (405.0 KiB)");
        assert_eq!(exact_bytes(63_700_992), "63,700,992 B (60.75 MiB)");
        assert_eq!(exact_bytes(8_253_440), "8,253,440 B (7.87 MiB)");
        assert_eq!(exact_bytes(12), "12 B (12 B)");
    }

    #[test]
    fn rounded_bytes_keeps_two_decimals() {
        assert_eq!(rounded_bytes(16384.0), "16 KiB");
        assert_eq!(rounded_bytes(1.5 * 1048576.0), "1.5 MiB");
        assert_eq!(rounded_bytes(63_700_992.0), "60.75 MiB");
        assert_eq!(rounded_bytes(100.5 * 1024.0), "100.5 KiB");
        assert_eq!(rounded_bytes((1u64 << 30) as f64), "1.000 GiB");
        assert_eq!(rounded_bytes(0.0), "0 B");
    }

    #[test]
    fn compact_bytes_keeps_three_significant_digits() {
        assert_eq!(compact_bytes(32768.0), "32 KiB");
        assert_eq!(compact_bytes(1.25 * 1048576.0), "1.25 MiB");
        assert_eq!(compact_bytes(12.0 * 1048576.0), "12 MiB");
        assert_eq!(compact_bytes(63_700_992.0), "60.8 MiB");
        assert_eq!(compact_bytes(100.5 * 1024.0), "100 KiB");
        assert_eq!(compact_bytes((1u64 << 30) as f64), "1 GiB");
        assert_eq!(compact_bytes(512.0), "512 B");
        assert_eq!(compact_bytes(f64::NAN), "");
    }
}
