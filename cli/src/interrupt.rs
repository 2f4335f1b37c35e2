//! Ctrl-C and `kill` during `kino analyze` and `kino render`: the first SIGINT, SIGTERM or SIGHUP
//! is recorded instead of ending the process at once, so the command can stop its ffmpeg
//! processes, remove the output it had started and say "interrupted" (exit status 128 + the
//! signal: 130 for Ctrl-C). A second one ends the process at once, as if no handler were there.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Set by the handler; the analysis reads it between frames.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The signal that set [`INTERRUPTED`] (0 before any).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// SIGINT's number, the status a stop without a known signal reports (130, as for Ctrl-C).
const SIGINT: i32 = 2;

/// Records the first stop signal from now on. A signal the process was started with ignored
/// stays ignored (a background job of a non-interactive shell keeps ignoring Ctrl-C).
pub fn install() {
    #[cfg(unix)]
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: `sigaction` gets a valid signal number and pointers to initialised structs
        // (all-zero is a valid `sigaction`, then filled in); `record` is async-signal-safe.
        unsafe {
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut previous) == 0 && previous.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = record as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// The signal handler. Only async-signal-safe operations: atomics, `sigaction`, `raise`.
#[cfg(unix)]
extern "C" fn record(signal: libc::c_int) {
    // The signal is stored before the flag is set, so whoever sees the flag finds the signal.
    if SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst).is_err() {
        // The second signal: back to the default action, which ends the process.
        // SAFETY: a zeroed `sigaction` is SIG_DFL with an empty mask; both calls are
        // async-signal-safe (POSIX.1-2017, 2.4.3).
        unsafe {
            let default: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, &default, std::ptr::null_mut());
            libc::raise(signal);
        }
        return;
    }
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// The exit status for a command that failed with `error`, when it failed because it was
/// interrupted: by a signal to kino (recorded by the handler), or by one to its ffmpeg
/// processes (ffmpeg stopped by Ctrl-C while kino itself ignores it).
pub fn exit_status(error: &(dyn std::error::Error + 'static)) -> Option<u8> {
    let own = match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    };
    let signal = own.or_else(|| match error.downcast_ref::<kino_media::Error>() {
        Some(kino_media::Error::Interrupted { signal, .. }) => Some(signal.unwrap_or(SIGINT)),
        _ => None,
    })?;
    Some(u8::try_from(128 + signal).unwrap_or(u8::MAX))
}
