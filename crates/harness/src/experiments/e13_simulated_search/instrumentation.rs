//! Callgrind's client requests that switch its instrumentation on and off from inside the
//! workload, so that building the tables, the evaluation and the TT runs uninstrumented.
//!
//! A client request is valgrind's "magic sequence": four rotations of `rdi` that add up to
//! 128 bits (no change) and `xchg rbx, rbx` (no change), with `rax` pointing at the request and
//! its arguments and `rdx` holding the answer outside valgrind. On a real CPU it does nothing;
//! valgrind's JIT recognises it and serves the request (valgrind.h, `VALGRIND_DO_CLIENT_REQUEST`
//! for amd64; the request numbers from callgrind.h).

/// `VG_USERREQ_TOOL_BASE('C', 'T')`: callgrind's first request number.
const CALLGRIND_BASE: u64 = (b'C' as u64) << 24 | (b'T' as u64) << 16;
/// `VG_USERREQ__ZERO_STATS`: the second after the base (dump stats comes first).
const ZERO_STATS: u64 = CALLGRIND_BASE + 1;
/// `VG_USERREQ__START_INSTRUMENTATION` and `…STOP…`: the fifth and sixth after the base
/// (dump stats, zero stats, toggle collect and dump stats at come first).
const START_INSTRUMENTATION: u64 = CALLGRIND_BASE + 4;
const STOP_INSTRUMENTATION: u64 = CALLGRIND_BASE + 5;

/// Asks callgrind to instrument from here on (with `--instr-atstart=no`, nothing before was).
pub fn start_instrumentation() {
    client_request(START_INSTRUMENTATION);
}

/// Asks callgrind to zero every cost counted so far; the simulated caches keep their contents,
/// so what is counted after it runs on caches the search before it warmed.
pub fn zero_stats() {
    client_request(ZERO_STATS);
}

/// Asks callgrind to stop instrumenting.
pub fn stop_instrumentation() {
    client_request(STOP_INSTRUMENTATION);
}

/// One client request without arguments; a no-op outside valgrind.
#[cfg(target_arch = "x86_64")]
fn client_request(request: u64) {
    let block: [u64; 6] = [request, 0, 0, 0, 0, 0];
    // SAFETY: the rotations leave `rdi` as it was and the exchange changes nothing; the
    // request block is read (by valgrind alone) while it lives on this stack frame.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") block.as_ptr(),
            inout("rdx") 0u64 => _,
            inout("rdi") 0u64 => _,
            options(nostack, preserves_flags),
        );
    }
    std::hint::black_box(&block);
}

/// Elsewhere there is no valgrind to ask.
#[cfg(not(target_arch = "x86_64"))]
fn client_request(_request: u64) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outside valgrind the requests change nothing and return.
    #[test]
    fn e13_client_requests_are_no_ops_outside_valgrind() {
        let before = std::hint::black_box(41u64) + 1;
        start_instrumentation();
        zero_stats();
        stop_instrumentation();
        assert_eq!(before, 42);
        assert_eq!(START_INSTRUMENTATION, 0x4354_0004);
        assert_eq!(ZERO_STATS, 0x4354_0001);
    }
}
