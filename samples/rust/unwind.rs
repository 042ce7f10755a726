// samples/rust/unwind.rs: a caught panic unwinding through functions
// (issues 17, 19).  The unwinder finds each frame's caller by its return
// address: return probes must leave the stack alone, and record nothing for
// the calls a panic leaves.  Builds with Debian 12's rustc 1.63 as with newer
// ones.
//
// usage: unwind [N [wait|panic]]   (default N: 6)
// For i = 0..N-1, main calls middle(i) under std::panic::catch_unwind;
// middle calls checked(i), which panics when i % 3 == 2 (caught in main,
// through middle's frame) and returns i*2 otherwise (middle adds 1).
// Prints "unwind: N calls, args sum A, caught C, returned R" (A = the sum
// of the i middle was called with) and exits 0 when C and R are right.
// With "wait", it first prints "unwind: ready" and waits for a line on stdin
// (a test attaches meanwhile).  With "panic", it then calls middle(2) with
// nothing to catch the panic: the default hook's message, exit status 101.
// With fd 3 open, states each return of checked and middle as ptap records
// them with `checked%return $retval i` and `middle%return $retval i`, in
// normalized form ("checked__return: retval=R i=I").
use std::fs::File;
use std::io::{self, BufRead, Write};
use std::mem::ManuallyDrop;
use std::os::unix::io::FromRawFd;
use std::panic;
use std::process::exit;

// One line on fd 3, when it is open (never closed here).
fn state(line: String) {
    let mut f = ManuallyDrop::new(unsafe { File::from_raw_fd(3) });
    let _ = f.write_all(line.as_bytes());
}

#[inline(never)]
fn checked(i: u64) -> u64 {
    if i % 3 == 2 {
        panic!("checked: {} is bad", i);
    }
    state(format!("checked__return: retval={} i={}\n", i * 2, i));
    i * 2
}

// The add after the call keeps it a call, not a tail call (a frame to unwind).
#[inline(never)]
fn middle(i: u64) -> u64 {
    let r = checked(i) + 1;
    state(format!("middle__return: retval={} i={}\n", r, i));
    r
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let n: u64 = match argv.get(1).map(|a| a.parse()) {
        None => 6,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("usage: unwind [N [wait|panic]]");
            exit(2);
        }
    };
    if argv.get(2).map(|a| a == "wait").unwrap_or(false) {
        println!("unwind: ready");
        io::stdout().flush().unwrap();
        io::stdin().lock().lines().next();
    }
    let (mut args, mut caught, mut sum) = (0, 0, 0);
    let (mut want_caught, mut want_sum) = (0, 0);

    panic::set_hook(Box::new(|_| {})); // the panics are expected: no message
    for i in 0..n {
        args += i;
        if i % 3 == 2 {
            want_caught += 1;
        } else {
            want_sum += i * 2 + 1;
        }
        match panic::catch_unwind(|| middle(i)) {
            Ok(r) => sum += r,
            Err(_) => caught += 1,
        }
    }
    println!("unwind: {} calls, args sum {}, caught {}, returned {}", n, args, caught, sum);
    if argv.get(2).map(|a| a == "panic").unwrap_or(false) {
        io::stdout().flush().unwrap();
        let _ = panic::take_hook(); // the default hook again: the panic is said
        middle(2);
    }
    exit(if caught == want_caught && sum == want_sum { 0 } else { 1 });
}
