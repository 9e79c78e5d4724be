//! CPU-time and cycle clocks for throughput reports on shared machines, where
//! wall-clock rates understate what a core can do.

/// CPU seconds consumed by this process (all threads).
pub fn process_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Time-stamp counter (constant rate on current x86-64), or 0 elsewhere.
pub fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// TSC ticks per second, measured against the wall clock over `ms` milliseconds.
pub fn tsc_hz(ms: u64) -> f64 {
    let (t0, c0) = (std::time::Instant::now(), tsc());
    std::thread::sleep(std::time::Duration::from_millis(ms));
    let (c1, dt) = (tsc(), t0.elapsed().as_secs_f64());
    (c1.wrapping_sub(c0)) as f64 / dt
}
