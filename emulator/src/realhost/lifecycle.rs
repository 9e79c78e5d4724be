//! Creating, checking and removing real hosts by name (`planck-emu hosts
//! up|check|down --config FILE`): a namespace per host, a veth pair with one
//! end inside it (address, fixed MAC, MTU of the emulation, offloads off,
//! IPv6 off) and the other in the emulator's namespace (no address, ARP and
//! IPv6 off, so this namespace's stack never answers or forwards for the
//! hosts), and static neighbour entries for every other real host: the
//! emulator carries IPv4 only.

use std::path::Path;
use std::process::Command;

use super::config::{cpu_mask, parse_cpu_list, parse_cpu_mask, ResolvedHost};

pub fn namespace_exists(ns: &str) -> bool {
    Path::new("/run/netns").join(ns).exists()
}

fn interface_exists(name: &str) -> bool {
    Path::new("/sys/class/net").join(name).exists()
}

/// Run a command; its failure as one line.
fn run(args: &[&str]) -> Result<String, String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{}: {e}", args[0]))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "`{}` failed: {}",
            args.join(" "),
            err.lines().next().unwrap_or("").trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

const OFFLOADS_OFF: [&str; 8] = ["tso", "off", "gso", "off", "gro", "off", "tx", "off"];

/// Run `args` in namespace `ns` with `input` on its standard input.
fn run_with_input(ns: &str, args: &[&str], input: &str) -> Result<(), String> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new("ip")
        .args(["netns", "exec", ns])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("ip: {e}"))?;
    let wrote = child
        .stdin
        .take()
        .map(|mut i| i.write_all(input.as_bytes()))
        .transpose();
    let out = child.wait_with_output().map_err(|e| format!("ip: {e}"))?;
    if !out.status.success() || wrote.is_err() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "`ip netns exec {ns} {}` failed: {}",
            args.join(" "),
            err.lines().next().unwrap_or("").trim()
        ));
    }
    Ok(())
}

/// `real_hosts.receive_cpus` against the CPUs online here.
pub fn online_receive_cpus(receive_cpus: &[u32]) -> Result<(), String> {
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online")
        .map_err(|e| format!("/sys/devices/system/cpu/online: {e}"))?;
    let online = parse_cpu_list(online.trim())?;
    if let Some(c) = receive_cpus.iter().find(|c| !online.contains(c)) {
        return Err(format!(
            "real_hosts.receive_cpus: CPU {c} is not online here (online: {:?})",
            online
        ));
    }
    Ok(())
}

fn rps_path(h: &ResolvedHost) -> String {
    format!("/sys/class/net/{}/queues/rx-0/rps_cpus", h.host_veth)
}

/// Create every host; on a failure remove what was made and say why.
/// `receive_cpus`: the CPUs RPS gives each host's receive work to.
pub fn up(hosts: &[ResolvedHost], mtu: u32, receive_cpus: Option<&[u32]>) -> Result<(), String> {
    if let Some(cpus) = receive_cpus {
        online_receive_cpus(cpus)?;
    }
    for h in hosts {
        if namespace_exists(&h.namespace) {
            return Err(format!(
                "namespace {:?} exists already (planck-emu hosts down first, or other names)",
                h.namespace
            ));
        }
        if interface_exists(&h.veth) {
            return Err(format!(
                "interface {:?} exists already (planck-emu hosts down first, or other names)",
                h.veth
            ));
        }
    }
    let made = make(hosts, mtu, receive_cpus);
    if made.is_err() {
        down(hosts);
    }
    made
}

fn make(hosts: &[ResolvedHost], mtu: u32, receive_cpus: Option<&[u32]>) -> Result<(), String> {
    let mtu = mtu.to_string();
    for h in hosts {
        let ns = h.namespace.as_str();
        let (veth, inner) = (h.veth.as_str(), h.host_veth.as_str());
        let addr = format!("{}/{}", h.ip, h.prefix);
        let mac = h.mac_string();
        run(&["ip", "netns", "add", ns])?;
        run(&[
            "ip", "link", "add", veth, "mtu", &mtu, "type", "veth", "peer", "name", inner, "netns",
            ns,
        ])?;
        run(&[
            "ip", "-n", ns, "link", "set", inner, "address", &mac, "mtu", &mtu,
        ])?;
        run(&[
            "ip",
            "netns",
            "exec",
            ns,
            "sysctl",
            "-qw",
            "net.ipv6.conf.all.disable_ipv6=1",
        ])?;
        run(&["ip", "-n", ns, "addr", "add", &addr, "dev", inner])?;
        run(&["ip", "-n", ns, "link", "set", "lo", "up"])?;
        run(&["ip", "-n", ns, "link", "set", inner, "up"])?;
        let mut k = vec!["ip", "netns", "exec", ns, "ethtool", "-K", inner];
        k.extend(OFFLOADS_OFF);
        run(&k)?;
        std::fs::write(format!("/proc/sys/net/ipv6/conf/{veth}/disable_ipv6"), "1")
            .map_err(|e| format!("disable IPv6 on {veth}: {e}"))?;
        run(&["ip", "link", "set", veth, "arp", "off", "up"])?;
        let mut k = vec!["ethtool", "-K", veth];
        k.extend(OFFLOADS_OFF);
        run(&k)?;
        if let Some(cpus) = receive_cpus {
            run_with_input(ns, &["tee", &rps_path(h)], &cpu_mask(cpus))?;
        }
    }
    for h in hosts {
        for g in hosts.iter().filter(|g| g.endpoint != h.endpoint) {
            run(&[
                "ip",
                "-n",
                &h.namespace,
                "neigh",
                "replace",
                &g.ip.to_string(),
                "lladdr",
                &g.mac_string(),
                "dev",
                &h.host_veth,
                "nud",
                "permanent",
            ])?;
        }
    }
    Ok(())
}

fn offloads_off(k: &str) -> Result<(), String> {
    for feature in [
        "tcp-segmentation-offload",
        "generic-segmentation-offload",
        "generic-receive-offload",
        "tx-checksumming",
    ] {
        let on = k.lines().any(|l| l.starts_with(&format!("{feature}: on")));
        if on {
            return Err(format!("{feature} is on"));
        }
    }
    Ok(())
}

/// Check every host is as `up` made it; the first problem as one line.
pub fn check(hosts: &[ResolvedHost], mtu: u32, receive_cpus: Option<&[u32]>) -> Result<(), String> {
    if let Some(cpus) = receive_cpus {
        online_receive_cpus(cpus)?;
    }
    for h in hosts {
        let at = |m: String| format!("real host {} ({}): {m}", h.ip, h.namespace);
        if !namespace_exists(&h.namespace) {
            return Err(at("no such namespace".into()));
        }
        if !interface_exists(&h.veth) {
            return Err(at(format!("no interface {:?}", h.veth)));
        }
        let link = run(&["ip", "-n", &h.namespace, "-o", "link", "show", &h.host_veth])
            .map_err(|_| at(format!("no interface {:?} in the namespace", h.host_veth)))?;
        if !link.contains(&h.mac_string()) {
            return Err(at(format!(
                "{} does not have MAC {}",
                h.host_veth,
                h.mac_string()
            )));
        }
        if !link.contains(&format!("mtu {mtu} ")) {
            return Err(at(format!("{} does not have MTU {mtu}", h.host_veth)));
        }
        let addr = run(&[
            "ip",
            "-n",
            &h.namespace,
            "-o",
            "-4",
            "addr",
            "show",
            "dev",
            &h.host_veth,
        ])
        .map_err(at)?;
        if !addr.contains(&format!("inet {}/{} ", h.ip, h.prefix)) {
            return Err(at(format!(
                "{} lacks address {}/{}",
                h.host_veth, h.ip, h.prefix
            )));
        }
        let k = run(&["ethtool", "-k", &h.veth]).map_err(at)?;
        offloads_off(&k).map_err(|e| at(format!("{}: {e}", h.veth)))?;
        let k = run(&[
            "ip",
            "netns",
            "exec",
            &h.namespace,
            "ethtool",
            "-k",
            &h.host_veth,
        ])
        .map_err(at)?;
        offloads_off(&k).map_err(|e| at(format!("{}: {e}", h.host_veth)))?;
        if let Some(cpus) = receive_cpus {
            let mask = run(&["ip", "netns", "exec", &h.namespace, "cat", &rps_path(h)]).map_err(at)?;
            let have = parse_cpu_mask(&mask).map_err(at)?;
            if have != cpus {
                return Err(at(format!(
                    "{} hands its receive work to CPUs {have:?}, not real_hosts.receive_cpus {cpus:?} (RPS, {})",
                    h.host_veth,
                    rps_path(h)
                )));
            }
        }
        let neigh = run(&[
            "ip",
            "-n",
            &h.namespace,
            "neigh",
            "show",
            "dev",
            &h.host_veth,
        ])
        .map_err(at)?;
        for g in hosts.iter().filter(|g| g.endpoint != h.endpoint) {
            let want = format!("{} lladdr {} PERMANENT", g.ip, g.mac_string());
            if !neigh.lines().any(|l| l.trim() == want) {
                return Err(at(format!("no permanent neighbour entry {want}")));
            }
        }
    }
    Ok(())
}

/// Remove every host's namespace and veth that exists; returns what was removed.
pub fn down(hosts: &[ResolvedHost]) -> Vec<String> {
    let mut gone = Vec::new();
    for h in hosts {
        if namespace_exists(&h.namespace) && run(&["ip", "netns", "del", &h.namespace]).is_ok() {
            gone.push(format!("namespace {}", h.namespace));
        }
        // Deleting the namespace deletes the pair; a veth left over is removed here.
        if interface_exists(&h.veth) && run(&["ip", "link", "del", &h.veth]).is_ok() {
            gone.push(format!("veth {}", h.veth));
        }
    }
    gone
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offload_check_reads_ethtool() {
        let off = "Features for x:\ntx-checksumming: off\ntcp-segmentation-offload: off\ngeneric-segmentation-offload: off [requested on]\ngeneric-receive-offload: off\n";
        assert!(offloads_off(off).is_ok());
        let on = off.replace(
            "generic-receive-offload: off",
            "generic-receive-offload: on",
        );
        assert_eq!(
            offloads_off(&on),
            Err("generic-receive-offload is on".into())
        );
    }
}
