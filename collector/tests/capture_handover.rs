//! Live capture on a veth pair this test creates (root only): both ring handovers deliver
//! every frame, in order, with its bytes, wire length and 802.1Q tag, and hand the slots
//! back so a ring smaller than the traffic keeps capturing.

use std::process::Command;

use etherparse::PacketBuilder;
use planck_collector::capture::afpacket::{Handover, PacketRing, RingConfig, interface_index};

struct VethPair(String);

impl Drop for VethPair {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["link", "del", &self.0]).status();
    }
}

fn ip(args: &[&str]) {
    let ok = Command::new("ip").args(args).status().is_ok_and(|s| s.success());
    assert!(ok, "ip {args:?} failed");
}

fn send_all(ifname: &str, frames: &[Vec<u8>]) {
    let ifindex = interface_index(ifname).unwrap();
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0) };
    assert!(fd >= 0);
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_ifindex = ifindex as i32;
    let rc = unsafe {
        libc::bind(
            fd,
            &sll as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_ll>() as u32,
        )
    };
    assert_eq!(rc, 0);
    for f in frames {
        let n = unsafe { libc::send(fd, f.as_ptr() as *const libc::c_void, f.len(), 0) };
        assert_eq!(n as usize, f.len());
    }
    unsafe { libc::close(fd) };
}

fn frame(i: u16, vlan: Option<u16>) -> Vec<u8> {
    let mut out = Vec::new();
    let payload = vec![i as u8; 100 + usize::from(i % 7)];
    let eth = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
    match vlan {
        Some(v) => eth
            .single_vlan(v.try_into().unwrap())
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(1000 + i, 2000)
            .write(&mut out, &payload)
            .unwrap(),
        None => eth
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(1000 + i, 2000)
            .write(&mut out, &payload)
            .unwrap(),
    }
    out
}

#[test]
fn both_handovers_deliver_every_frame_in_order() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("capture_handover: needs root to create a veth pair; not run");
        return;
    }
    for (n, handover) in [Handover::Block, Handover::Frame].into_iter().enumerate() {
        let tag = (std::process::id() & 0xfff) as u16;
        let (tx_if, rx_if) = (format!("pkh{tag:03x}{n}a"), format!("pkh{tag:03x}{n}b"));
        ip(&["link", "add", &tx_if, "type", "veth", "peer", "name", &rx_if]);
        let _guard = VethPair(tx_if.clone());
        for l in [&tx_if, &rx_if] {
            let _ = std::fs::write(format!("/proc/sys/net/ipv6/conf/{l}/disable_ipv6"), "1");
            ip(&["link", "set", l, "up"]);
        }
        // 4 KiB blocks x 8: 16 frame slots (Frame) or a few blocks (Block), far fewer than
        // the frames sent, so slots must go back to the kernel between rounds.
        let mut ring = PacketRing::open(
            &rx_if,
            &RingConfig {
                handover,
                block_size: 4096,
                block_count: 8,
                block_timeout_ms: 1,
                promiscuous: true,
            },
            None,
        )
        .unwrap();
        let mut got: Vec<(Vec<u8>, u32, Option<u16>)> = Vec::new();
        let mut sent = Vec::new();
        for round in 0..10u16 {
            let batch: Vec<Vec<u8>> = (0..12)
                .map(|k| {
                    let i = round * 12 + k;
                    frame(i, (i % 3 == 0).then_some(100 + i))
                })
                .collect();
            send_all(&tx_if, &batch);
            sent.extend(batch);
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while got.len() < sent.len() && std::time::Instant::now() < deadline {
                ring.poll_once(10, |frames| {
                    for (meta, data) in frames {
                        got.push((data.to_vec(), meta.wire_len, meta.vlan));
                    }
                })
                .unwrap();
            }
        }
        // Other traffic on a fresh veth is possible only from this test; keep ours.
        let ours: Vec<_> = got
            .into_iter()
            .filter(|(d, _, _)| d.len() >= 12 && d[..12] == [2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1])
            .collect();
        assert_eq!(ours.len(), sent.len(), "{handover:?}");
        for (i, ((data, wire_len, vlan), s)) in ours.iter().zip(&sent).enumerate() {
            let i = i as u16;
            if i % 3 == 0 {
                // The kernel strips the tag into the ring header (or leaves it inline).
                let inline = data.len() == s.len();
                assert!(inline || *vlan == Some(100 + i), "{handover:?} frame {i}: {vlan:?}");
                if !inline {
                    assert_eq!(&data[..12], &s[..12]);
                    assert_eq!(&data[12..], &s[16..], "{handover:?} frame {i}");
                }
            } else {
                assert_eq!(data, s, "{handover:?} frame {i}");
                assert_eq!(*vlan, None);
            }
            assert!(*wire_len as usize >= data.len(), "{handover:?} frame {i}");
        }
    }
}
