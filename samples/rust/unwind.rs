// samples/rust/unwind.rs: a caught panic unwinding through functions
// (issue 17).  The unwinder finds each frame's caller by its return address;
// a return address swapped for ptap's return trampoline has no unwind
// information, and the panic aborts the program ("fatal runtime error: failed
// to initiate panic"): ptap refuses `middle%return` and `checked%return`; an
// entry probe is fine.  Builds with Debian 12's rustc 1.63 as with newer ones.
//
// usage: unwind [N [wait]]   (default N: 6)
// For i = 0..N-1, main calls middle(i) under std::panic::catch_unwind;
// middle calls checked(i), which panics when i % 3 == 2 (caught in main,
// through middle's frame) and returns i*2 otherwise (middle adds 1).
// Prints "unwind: N calls, args sum A, caught C, returned R" (A = the sum
// of the i middle was called with) and exits 0 when C and R are right.
// With "wait", it first prints "unwind: ready" and waits for a line on stdin
// (a test attaches meanwhile).
use std::io::{self, BufRead, Write};
use std::panic;
use std::process::exit;

#[inline(never)]
fn checked(i: u64) -> u64 {
    if i % 3 == 2 {
        panic!("checked: {} is bad", i);
    }
    i * 2
}

// The add after the call keeps it a call, not a tail call (a frame to unwind).
#[inline(never)]
fn middle(i: u64) -> u64 {
    checked(i) + 1
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let n: u64 = match argv.get(1).map(|a| a.parse()) {
        None => 6,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("usage: unwind [N [wait]]");
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
    exit(if caught == want_caught && sum == want_sum { 0 } else { 1 });
}
