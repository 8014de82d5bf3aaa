//! User input made safe to echo: quoted, escaped and cut (placeholder until the reader lands).

/// The text in single quotes, control characters escaped, cut to 120 characters.
pub fn quote_input(text: &str) -> String {
    const SHOWN: usize = 120;
    let total = text.chars().count();
    let shown: String = text
        .chars()
        .take(SHOWN)
        .flat_map(|ch| {
            if ch.is_control() {
                ch.escape_default().collect::<Vec<_>>()
            } else {
                vec![ch]
            }
        })
        .collect();
    if total > SHOWN {
        format!("'{shown}…' ({total} characters, first {SHOWN} shown)")
    } else {
        format!("'{shown}'")
    }
}
