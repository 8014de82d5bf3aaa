//! Generates the committed magic numbers: `cargo run --release --features probes --example gen_magics -- magic >
//! variants/magic/magics.rs` (fancy, variable width) or `-- magic-plain >
//! variants/magic_plain/magics.rs` (fixed 14-bit index).

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let source = match which.as_str() {
        "magic" => kiki_variants::magic::generate_magics_source(),
        "magic-plain" => kiki_variants::magic_plain::generate_magics_source(),
        _ => {
            eprintln!("usage: gen_magics (magic | magic-plain) > variants/<folder>/magics.rs");
            std::process::exit(2);
        }
    };
    print!("{source}");
}
