// samples/rust/strs.rs: Rust's strings as ptap prints them (issue 21): a
// &str (a pointer and a length, in two registers: never NUL-terminated, the
// bytes after it are the String's next ones), a String passed by value (a
// Vec<u8> a few structs deep) and a Box<str>; a slice &[i64] and a Vec<i64>.
//
// usage: strs [N]   (default N: 3)
// Calls, for i = 0..N-1: lookup(&key, i) with key the first 5 bytes of
// "key-I-and-more", store("owned-I"), boxed("box-I"); each reads its
// string's first byte, so that its pointer is not optimized out; then
// total(&v[..]) and vtotal(&v) with v = [I, 10, 20]; an Account's deposit(I)
// (a method) and its Display (a trait's method); apply(|x| x + 5, I),
// its closure inlined (no symbol: known by DWARF alone).  Prints "strs: N
// rounds, sum S" and exits 0 when S is right.  With fd 3 open, states each
// call as ptap records it with `strs::lookup key n`, `strs::store owned`,
// `strs::boxed b`, `strs::total v`, `strs::vtotal *v`,
// `strs::Account::deposit amount`, `<strs::Account as core::fmt::Display>::fmt
// *self` and `strs::main::{{closure}} x`.
use std::io::Write;
use std::os::fd::FromRawFd;

#[inline(never)]
fn lookup(key: &str, n: usize) -> usize {
    key.len() + n + key.as_bytes()[0] as usize
}

#[inline(never)]
fn store(owned: String) -> usize {
    owned.len() + owned.as_bytes()[0] as usize
}

#[inline(never)]
fn boxed(b: Box<str>) -> usize {
    b.len() * 2 + b.as_bytes()[0] as usize
}

#[inline(never)]
fn total(v: &[i64]) -> i64 {
    v.iter().sum()
}

#[inline(never)]
fn vtotal(v: &Vec<i64>) -> i64 {
    v.iter().sum()
}

pub struct Account {
    pub id: u32,
    pub balance: i64,
}

impl Account {
    #[inline(never)]
    pub fn deposit(&mut self, amount: i64) -> i64 {
        self.balance += amount;
        self.balance
    }
}

impl std::fmt::Display for Account {
    #[inline(never)]
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "acct {}", self.id)
    }
}

#[inline(never)]
fn apply<F: Fn(usize) -> usize>(f: F, v: usize) -> usize {
    f(v)
}

fn main() {
    let n: usize = match std::env::args().nth(1) {
        Some(a) => a.parse().unwrap_or(3),
        None => 3, // no closure here: main's one closure is apply's
    };
    // fd 3, when the caller opened it: never closed here (ManuallyDrop)
    let mut fd3 = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(3) });
    let (mut sum, mut want) = (0usize, 0usize);

    for i in 0..n {
        let full = format!("key-{}-and-more", i);
        let key = &full[..5];
        let _ = writeln!(fd3, "strs_lookup: key=\"{}\" n={}", key, i);
        sum += lookup(key, i);
        let owned = format!("owned-{}", i);
        let _ = writeln!(fd3, "strs_store: owned=\"{}\"", owned);
        want += key.len() + i + owned.len() + (b'k' + b'o') as usize;
        sum += store(owned);
        let b = format!("box-{}", i).into_boxed_str();
        let _ = writeln!(fd3, "strs_boxed: b=\"{}\"", b);
        want += b.len() * 2 + b'b' as usize;
        sum += boxed(b);
        let v = vec![i as i64, 10, 20];
        let _ = writeln!(fd3, "strs_total: v={{[0]={}, [1]=10, [2]=20}}", i);
        let _ = writeln!(fd3, "strs_vtotal: *v={{[0]={}, [1]=10, [2]=20}}", i);
        let t = total(&v[..]) + vtotal(&v);
        want += 2 * (i + 30);
        sum += t as usize;
        let mut acct = Account { id: 7, balance: 100 };
        let _ = writeln!(fd3, "strs_Account_deposit: amount={}", i);
        sum += acct.deposit(i as i64) as usize;
        want += 100 + i;
        let _ = writeln!(fd3, "strs_Account_as_core_fmt_Display_fmt: *self={{id=7, balance={}}}", 100 + i);
        sum += format!("{}", acct).len();
        want += "acct 7".len();
        let k = 5;
        let _ = writeln!(fd3, "strs_main_closure: x={}", i);
        sum += apply(|x| x + k, i);
        want += i + 5;
    }
    println!("strs: {} rounds, sum {}", n, sum);
    std::process::exit(if sum == want { 0 } else { 1 });
}
