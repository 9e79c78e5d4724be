//! Compiles the XDP fast path of INT reports (bpf/int_xdp.c) with clang-14 (installed by
//! scripts/deps.sh). Without clang the collector still builds; `int.xdp` then fails to
//! start with a one-line reason instead of loading a program.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(int_xdp_built)");
    println!("cargo:rerun-if-changed=bpf/int_xdp.c");
    println!("cargo:rerun-if-env-changed=PLANCK_BPF_CLANG");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("int_xdp.o");
    let clang = std::env::var("PLANCK_BPF_CLANG").unwrap_or_else(|_| "clang-14".into());
    let arch = match std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() {
        Ok("aarch64") => "aarch64-linux-gnu",
        _ => "x86_64-linux-gnu",
    };
    let status = Command::new(&clang)
        .args(["-O2", "-g", "-target", "bpf", "-Wall", "-Werror"])
        .arg(format!("-I/usr/include/{arch}"))
        .args(["-c", "bpf/int_xdp.c", "-o"])
        .arg(&out)
        .status();
    match status {
        Ok(s) if s.success() => println!("cargo:rustc-cfg=int_xdp_built"),
        Ok(s) => panic!("{clang} failed on bpf/int_xdp.c ({s})"),
        Err(e) => println!("cargo:warning=bpf/int_xdp.c not built ({clang}: {e}); int.xdp will not start"),
    }
}
