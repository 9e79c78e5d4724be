// Reference for planck-emu's accuracy experiment (Flexplane §5, Fig. 4):
// servers and clients on one switch, flows read from a CSV, TCP NewReno with
// SACK (or DCTCP), FCT to the last byte at the receiver.
//
// Build: g++ -O2 -std=c++17 fct_ref.cc $(pkg-config --cflags --libs ns3-...) -o fct_ref
// Run:   fct_ref --flows=flows.csv --out=fct.csv --scheme=droptail|dctcp|red
//        [--hosts=36] [--gbps=10] [--delayUs=1.2] [--buffer=1024] [--k=65]
//        [--hostJitterNs=0 [--hostJitterCentred=1] --seed=1]
//
// flows.csv: id,src,dst,bytes,start_us (endpoint ids 0..hosts-1).
// fct.csv:   id,src,dst,bytes,start_us,rx_fct_us,retransmits,timeouts,recoveries
//            (rx_fct_us from the flow's start, when its data is handed to a
//            connection opened ahead of time, to the last byte at the
//            receiver; data segments sent again, entries into loss (timeout)
//            and fast recovery, handshake end relative to the start).
//            --trace=FILE logs every cwnd change, --queueTrace=FILE the switch queues.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

// ns-3.37's TcpDctcp cuts the window to (1 - alpha / 2) cwnd with no floor:
// a short flow marked in several windows in a row goes below one segment
// (10, 5, 2.5, 1.25, 0.62 segments), cannot send, and waits for the 10 ms
// retransmission timer with nothing lost. Linux floors DCTCP's ssthresh at
// 2 segments and RFC 5681 never takes cwnd below one; the emulator floors
// at one segment, and so does the reference.
class TcpDctcpSegmentFloor : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpDctcpSegmentFloor")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpDctcpSegmentFloor>();
        return tid;
    }

    TcpDctcpSegmentFloor() = default;

    TcpDctcpSegmentFloor(const TcpDctcpSegmentFloor& sock)
        : TcpDctcp(sock)
    {
    }

    std::string GetName() const override
    {
        return "TcpDctcpSegmentFloor";
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return std::max(TcpDctcp::GetSsThresh(tcb, bytesInFlight), tcb->m_segmentSize);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpDctcpSegmentFloor>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpDctcpSegmentFloor);

// A host's link with a random delay of uniform [0, J) added to every packet the
// host sends (data and ACKs), between its link and the switch: the timing noise
// of a real host and NIC. ns-3 is exact in continuous time, and with every link
// at the same rate ACK-clocked senders keep a fixed phase against a full
// DropTail port's departures (Floyd and Jacobson's phase effect): ties at the
// port are broken by event order, the same way every time, so one flow takes
// every freed place and another loses all it sends (docs/emulator.md,
// "Discrepancies" 4 and 10). The jitter breaks those ties at random. Arrivals
// at the switch never overtake each other (a packet is held until the one sent
// before it has arrived), so neither a flow's packets nor a host's are
// reordered. Seeded from the run's seed and the link: the same run gives the
// same result.
class HostJitterChannel : public PointToPointChannel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::HostJitterChannel")
                                .SetParent<PointToPointChannel>()
                                .SetGroupName("PointToPoint")
                                .AddConstructor<HostJitterChannel>();
        return tid;
    }

    // centred: the delay is shortened by J / 2, so a packet's mean delay is the link's
    // (J <= 2 x delay); otherwise the jitter only adds, J / 2 on average.
    void Configure(Ptr<PointToPointNetDevice> host, Time jitter, bool centred, uint64_t seed)
    {
        m_host = host;
        m_jitterNs = jitter.GetNanoSeconds();
        m_shiftNs = centred ? m_jitterNs / 2 : 0;
        m_rng.seed(seed);
    }

    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override
    {
        if (src != m_host || m_jitterNs <= 0)
        {
            return PointToPointChannel::TransmitStart(p, src, txTime);
        }
        Ptr<PointToPointNetDevice> dst =
            GetPointToPointDevice(0) == src ? GetPointToPointDevice(1) : GetPointToPointDevice(0);
        int64_t extra = std::uniform_int_distribution<int64_t>(0, m_jitterNs - 1)(m_rng);
        Time at = Simulator::Now() + txTime + GetDelay() + NanoSeconds(extra - m_shiftNs);
        if (at < m_lastArrival)
        {
            at = m_lastArrival; // same-time events run in the order scheduled
        }
        m_lastArrival = at;
        Simulator::ScheduleWithContext(dst->GetNode()->GetId(), at - Simulator::Now(),
                                       &PointToPointNetDevice::Receive, dst, p->Copy());
        return true;
    }

  private:
    Ptr<PointToPointNetDevice> m_host;
    int64_t m_jitterNs = 0;
    int64_t m_shiftNs = 0;
    Time m_lastArrival;
    std::mt19937_64 m_rng;
};

NS_OBJECT_ENSURE_REGISTERED(HostJitterChannel);

struct Flow
{
    uint32_t id, src, dst;
    uint64_t bytes;
    double startUs;
    uint64_t queued = 0;   // bytes handed to the socket
    uint64_t received = 0; // bytes at the receiver
    double connectedS = -1, sendS = -1, doneS = -1; // sendS: data handed to the socket
    bool wantSend = false;
    uint32_t highTx = 0;      // highest sequence sent + 1 (relative)
    uint32_t retransmits = 0; // segments sent below highTx
    uint32_t timeouts = 0;    // entries into CA_LOSS
    uint32_t recoveries = 0;  // entries into CA_RECOVERY
    Ptr<Socket> sock;
};

static std::vector<Flow> g_flows;
static std::map<uint16_t, uint32_t> g_byPort; // sender's local port -> flow index
static uint32_t g_done = 0;

static uint64_t g_switchDrops = 0, g_switchMarks = 0;

static void
SwitchDrop(Ptr<const QueueDiscItem>)
{
    g_switchDrops++;
}

static void
SwitchMark(Ptr<const QueueDiscItem>, const char*)
{
    g_switchMarks++;
}

static std::ofstream g_trace; // optional cwnd trace: time_us,flow,cwnd_segments

// Connections are opened ahead of the flows (all of them, in an idle network,
// before the first flow starts) so that a flow's data starts at its start
// time, as in the emulator, which has no handshake: otherwise a SYN waits in
// the queue it is about to measure (and is left out of the FCT), and a lost
// SYN (3 s ns-3 ConnTimeout) moves the flow to a different, idle network.
static double g_offsetUs = 0; // simulated time of the flows' time 0
static bool g_preconnect = true;

static double
NowUs()
{
    return Simulator::Now().GetNanoSeconds() / 1000.0 - g_offsetUs;
}

static void
TxSegment(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    // Sequence numbers relative to the SYN's; only data segments count.
    if (p->GetSize() == 0)
    {
        return;
    }
    Flow& f = g_flows[i];
    uint32_t end = h.GetSequenceNumber().GetValue() + p->GetSize();
    if (f.highTx == 0 || (int32_t)(end - f.highTx) > 0)
    {
        f.highTx = end;
    }
    else
    {
        f.retransmits++;
    }
}

static void
CongStateChange(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        g_flows[i].timeouts++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        g_flows[i].recoveries++;
    }
}

static void
CwndChange(uint32_t i, uint32_t, uint32_t cwnd)
{
    g_trace << NowUs() << "," << i << "," << cwnd / 1460.0 << "\n";
}

// Optional queue trace: every switch port's queue disc, sampled periodically.
static std::ofstream g_queueTrace;
static std::vector<Ptr<QueueDisc>> g_switchQueues;

static void
SampleQueues(Time every)
{
    for (uint32_t h = 0; h < g_switchQueues.size(); h++)
    {
        uint32_t n = g_switchQueues[h]->GetNPackets();
        if (n > 0)
        {
            g_queueTrace << NowUs() << "," << h << "," << n << "\n";
        }
    }
    if (g_done < g_flows.size())
    {
        Simulator::Schedule(every, &SampleQueues, every);
    }
}

static const uint16_t kServerPort = 5000;
static const uint16_t kFirstPort = 10000;

static void
Fill(Ptr<Socket> s, uint32_t)
{
    // The flow index is the socket's local port offset.
    Address a;
    s->GetSockName(a);
    uint16_t port = InetSocketAddress::ConvertFrom(a).GetPort();
    Flow& f = g_flows[g_byPort[port]];
    if (f.sendS < 0)
    {
        return; // connected ahead, the flow has not started yet
    }
    while (f.queued < f.bytes)
    {
        uint32_t room = s->GetTxAvailable();
        if (room == 0)
        {
            return;
        }
        uint32_t n = (uint32_t)std::min<uint64_t>(room, f.bytes - f.queued);
        n = std::min<uint32_t>(n, 65536);
        int sent = s->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            return;
        }
        f.queued += sent;
    }
}

static void
Connected(Ptr<Socket> s)
{
    Address a;
    s->GetSockName(a);
    Flow& f = g_flows[g_byPort[InetSocketAddress::ConvertFrom(a).GetPort()]];
    f.connectedS = Simulator::Now().GetSeconds();
    if (!g_preconnect || f.wantSend)
    {
        f.sendS = f.connectedS;
        Fill(s, 0);
    }
}

static void
BeginData(uint32_t i)
{
    Flow& f = g_flows[i];
    if (f.connectedS >= 0)
    {
        f.sendS = Simulator::Now().GetSeconds();
        Fill(f.sock, 0);
    }
    else
    {
        f.wantSend = true; // starts when the handshake completes (counted late)
    }
}

static void
ConnectFailed(Ptr<Socket>)
{
    std::cerr << "fct_ref: connection failed\n";
}

static void
StartFlow(uint32_t i, Ptr<Node> node, Ipv4Address dst)
{
    Flow& f = g_flows[i];
    f.sock = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    uint16_t port = kFirstPort + i;
    f.sock->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    f.sock->SetConnectCallback(MakeCallback(&Connected), MakeCallback(&ConnectFailed));
    f.sock->SetSendCallback(MakeCallback(&Fill));
    f.sock->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TxSegment, i));
    f.sock->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateChange, i));
    if (g_trace.is_open())
    {
        f.sock->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndChange, i));
    }
    f.sock->Connect(InetSocketAddress(dst, kServerPort));
}

static void
Recv(Ptr<Socket> s)
{
    Address from;
    Ptr<Packet> p;
    while ((p = s->RecvFrom(from)) && p->GetSize() > 0)
    {
        uint16_t port = InetSocketAddress::ConvertFrom(from).GetPort();
        auto it = g_byPort.find(port);
        if (it == g_byPort.end())
        {
            continue;
        }
        Flow& f = g_flows[it->second];
        f.received += p->GetSize();
        if (f.received >= f.bytes && f.doneS < 0)
        {
            f.doneS = Simulator::Now().GetSeconds();
            f.sock->Close();
            if (++g_done == g_flows.size())
            {
                Simulator::Stop();
            }
        }
    }
}

static void
Accept(Ptr<Socket> s, const Address&)
{
    s->SetRecvCallback(MakeCallback(&Recv));
}

static bool
AcceptAll(Ptr<Socket>, const Address&)
{
    return true;
}

int
main(int argc, char* argv[])
{
    std::string flowsFile, outFile, traceFile, queueTraceFile, scheme = "droptail";
    double queueSampleUs = 10;
    bool dctcpFloor = true;
    bool hostPacing = true;
    uint32_t hosts = 36, buffer = 1024, k = 65, initCwnd = 10;
    double gbps = 10, delayUs = 1.2, minRtoMs = 10, limitS = 60, hostJitterNs = 0;
    double redMinTh = 65, redMaxTh = 195, redMaxP = 0.1, redQw = 0.002;
    uint32_t seed = 1;
    bool hostJitterCentred = false;
    CommandLine cmd;
    cmd.AddValue("flows", "flows CSV (id,src,dst,bytes,start_us)", flowsFile);
    cmd.AddValue("out", "output CSV", outFile);
    cmd.AddValue("scheme", "droptail, dctcp or red (RED with ECN)", scheme);
    cmd.AddValue("hosts", "endpoints on the switch", hosts);
    cmd.AddValue("gbps", "link rate", gbps);
    cmd.AddValue("delayUs", "propagation delay per link", delayUs);
    cmd.AddValue("buffer", "switch port buffer, packets", buffer);
    cmd.AddValue("k", "DCTCP marking threshold, packets", k);
    cmd.AddValue("redMinTh", "RED: min_th, packets waiting at the port", redMinTh);
    cmd.AddValue("redMaxTh", "RED: max_th, packets waiting at the port", redMaxTh);
    cmd.AddValue("redMaxP", "RED: the curve's probability at max_th", redMaxP);
    cmd.AddValue("redQw", "RED: weight of the average", redQw);
    cmd.AddValue("initCwnd", "initial window, segments", initCwnd);
    cmd.AddValue("minRtoMs", "minimum RTO", minRtoMs);
    cmd.AddValue("limitS", "simulated time limit", limitS);
    cmd.AddValue("dctcpFloor", "DCTCP's window cut never below one segment (default)", dctcpFloor);
    cmd.AddValue("hostPacing", "senders no faster than their link (default; see below)", hostPacing);
    cmd.AddValue("preconnect", "open every connection before the first flow starts (default)", g_preconnect);
    cmd.AddValue("hostJitterNs",
                 "random delay uniform [0, J) ns on every packet a host sends, order kept (0: none)",
                 hostJitterNs);
    cmd.AddValue("hostJitterCentred",
                 "the host link's delay shortened by J / 2, so the jitter keeps its mean delay (J <= 2 x delay)",
                 hostJitterCentred);
    cmd.AddValue("seed", "seed of the host jitter", seed);
    cmd.AddValue("trace", "write every cwnd change here (time_us,flow,cwnd in segments)", traceFile);
    cmd.AddValue("queueTrace", "write switch port occupancies here (time_us,port,packets)", queueTraceFile);
    cmd.AddValue("queueSampleUs", "queue trace sampling interval", queueSampleUs);
    cmd.Parse(argc, argv);
    if (flowsFile.empty() || outFile.empty() || (scheme != "droptail" && scheme != "dctcp" && scheme != "red") ||
        !(hostJitterNs >= 0 && hostJitterNs < 1e6))
    {
        std::cerr << "fct_ref: need --flows, --out, --scheme=droptail|dctcp|red and --hostJitterNs in [0, 1e6)\n";
        return 2;
    }
    if (!(redMinTh >= 1 && redMaxTh > redMinTh && redMaxP > 0 && redMaxP <= 1 && redQw > 0 && redQw <= 1))
    {
        std::cerr << "fct_ref: RED needs 1 <= redMinTh < redMaxTh, redMaxP and redQw in (0, 1]\n";
        return 2;
    }
    if (hostJitterCentred && hostJitterNs > 2 * delayUs * 1000)
    {
        std::cerr << "fct_ref: --hostJitterCentred needs --hostJitterNs <= 2 x --delayUs\n";
        return 2;
    }

    if (!traceFile.empty())
    {
        g_trace.open(traceFile);
        g_trace << "time_us,flow,cwnd\n";
    }
    std::ifstream in(flowsFile);
    if (!in)
    {
        std::cerr << "fct_ref: cannot read " << flowsFile << "\n";
        return 2;
    }
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line))
    {
        if (line.empty())
        {
            continue;
        }
        std::stringstream ss(line);
        Flow f;
        char c;
        if (!(ss >> f.id >> c >> f.src >> c >> f.dst >> c >> f.bytes >> c >> f.startUs) ||
            f.src >= hosts || f.dst >= hosts || f.src == f.dst || f.bytes == 0)
        {
            std::cerr << "fct_ref: bad flow line: " << line << "\n";
            return 2;
        }
        g_flows.push_back(f);
    }
    if (g_flows.size() + kFirstPort > 65535)
    {
        std::cerr << "fct_ref: too many flows\n";
        return 2;
    }

    // TCP as the emulator is configured: 1500-byte packets (no timestamps),
    // IW 10, SACK, min RTO, no delayed ACK, classic (halving) recovery.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(scheme != "dctcp" ? TcpNewReno::GetTypeId()
                                   : dctcpFloor      ? TcpDctcpSegmentFloor::GetTypeId()
                                                     : TcpDctcp::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(minRtoMs)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    if (hostPacing)
    {
        // A sender puts its packets on the host's link no faster than the link
        // sends them (payload rate of a 1,502-byte frame per 1460 bytes), as
        // Linux's TCP small queues and the emulator (a flow sends when its
        // host's link is free) do. Without it a flow limited by its own link
        // queues its whole window in the host (cwnd grew to 11,000 segments
        // with no mark), and when the switch port congests, thousands of
        // packets already queued keep coming whatever the window does: ns-3's
        // DCTCP ports held 250 packets at K = 65. The ratios keep the rate at
        // the ceiling (ns-3 otherwise paces at 2 or 1.2 cwnd per RTT).
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
        Config::SetDefault("ns3::TcpSocketState::PaceInitialWindow", BooleanValue(true));
        Config::SetDefault("ns3::TcpSocketState::PacingSsRatio", UintegerValue(65535));
        Config::SetDefault("ns3::TcpSocketState::PacingCaRatio", UintegerValue(65535));
        Config::SetDefault("ns3::TcpSocketState::MaxPacingRate",
                           DataRateValue(DataRate((uint64_t)(gbps * 1e9 * 1460 / 1502))));
    }
    if (scheme == "dctcp")
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
        Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(1.0 / 16));
    }
    if (scheme == "red")
    {
        // NewReno with classic ECN (RFC 3168): one cut per window on ECE.
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }

    NodeContainer sw, endpoints;
    sw.Create(1);
    endpoints.Create(hosts);
    InternetStackHelper stack;
    stack.Install(sw);
    stack.Install(endpoints);

    PointToPointHelper p2p;
    std::ostringstream rate;
    rate << gbps << "Gbps";
    p2p.SetDeviceAttribute("DataRate", StringValue(rate.str()));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds((uint64_t)(delayUs * 1000))));
    // The switch port's queue is the queue disc; the device holds one packet.
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    TrafficControlHelper tcSwitch;
    std::ostringstream qsize;
    qsize << buffer << "p";
    if (scheme == "dctcp")
    {
        // Instantaneous queue (QW = 1), never drop early, mark at K packets
        // waiting at the port. RED sees only the queue disc; the device's
        // one-packet queue behind it is part of the port's buffer too, so the
        // disc marks at K - 1 (the emulator, like a switch, counts every
        // packet waiting at the port: a packet that arrives to K of them
        // waits K transmissions). Marking at K in the disc kept ns-3's
        // standing queue 2-3 packets above the emulator's (one-packet flows
        // beside two long ones: 79.7 against 76.3 us).
        double th = std::max(1.0, (double)k - 1);
        tcSwitch.SetRootQueueDisc("ns3::RedQueueDisc",
                                  "MaxSize", QueueSizeValue(QueueSize(qsize.str())),
                                  "QW", DoubleValue(1.0),
                                  "MinTh", DoubleValue(th),
                                  "MaxTh", DoubleValue(th),
                                  "UseEcn", BooleanValue(true),
                                  "UseHardDrop", BooleanValue(false),
                                  "Gentle", BooleanValue(false),
                                  "MeanPktSize", UintegerValue(1500));
    }
    else if (scheme == "red")
    {
        // RED as Floyd and Jacobson (Gentle off, Wait on: drops spread by the
        // count since the last), marking ECN-capable packets below max_th and
        // dropping every packet at or above it (hard drop). The thresholds
        // count the disc's queue only, so, as for DCTCP, each is one below the
        // emulator's (which counts the device's one packet too). The average
        // decays while the port is idle at LinkBandwidth / (8 x MeanPktSize)
        // packets a second: one per 1,500-byte transmission, the emulator's
        // slot.
        std::ostringstream bw;
        bw << gbps << "Gbps";
        tcSwitch.SetRootQueueDisc("ns3::RedQueueDisc",
                                  "MaxSize", QueueSizeValue(QueueSize(qsize.str())),
                                  "QW", DoubleValue(redQw),
                                  "MinTh", DoubleValue(redMinTh - 1),
                                  "MaxTh", DoubleValue(redMaxTh - 1),
                                  "LInterm", DoubleValue(1.0 / redMaxP),
                                  "UseEcn", BooleanValue(true),
                                  "UseHardDrop", BooleanValue(true),
                                  "Gentle", BooleanValue(false),
                                  "Wait", BooleanValue(true),
                                  "MeanPktSize", UintegerValue(1500),
                                  "LinkBandwidth", DataRateValue(DataRate(bw.str())),
                                  "LinkDelay", TimeValue(NanoSeconds((uint64_t)(delayUs * 1000))));
    }
    else
    {
        tcSwitch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                                  QueueSizeValue(QueueSize(qsize.str())));
    }
    // Hosts: per-flow round robin without drops (FQ with CoDel's target out
    // of reach), as Linux's fq with TCP small queues keeps one flow's window
    // from queueing ahead of another's; the emulator's endpoints do the same.
    TrafficControlHelper tcHost;
    tcHost.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                            "MaxSize", QueueSizeValue(QueueSize("10000p")),
                            "Target", StringValue("10s"),
                            "Interval", StringValue("100s"));

    Ipv4AddressHelper addr;
    std::vector<Ipv4Address> hostIp(hosts);
    for (uint32_t h = 0; h < hosts; h++)
    {
        NetDeviceContainer d = p2p.Install(endpoints.Get(h), sw.Get(0));
        if (hostJitterNs > 0)
        {
            // The same link with the host's jitter: both ends move to it.
            Ptr<HostJitterChannel> ch = CreateObject<HostJitterChannel>();
            ch->SetAttribute("Delay", TimeValue(NanoSeconds((uint64_t)(delayUs * 1000))));
            Ptr<PointToPointNetDevice> hostDev = DynamicCast<PointToPointNetDevice>(d.Get(0));
            ch->Configure(hostDev, NanoSeconds((int64_t)hostJitterNs), hostJitterCentred,
                          (uint64_t)seed * 1000003 + h);
            hostDev->Attach(ch);
            DynamicCast<PointToPointNetDevice>(d.Get(1))->Attach(ch);
        }
        tcHost.Install(d.Get(0));
        g_switchQueues.push_back(tcSwitch.Install(d.Get(1)).Get(0));
        std::ostringstream net;
        net << "10." << (h / 250) << "." << (h % 250) << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifc = addr.Assign(d);
        hostIp[h] = ifc.GetAddress(0);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    Config::ConnectWithoutContext(
        "/NodeList/0/$ns3::TrafficControlLayer/RootQueueDiscList/*/Drop",
        MakeCallback(&SwitchDrop));
    Config::ConnectWithoutContext(
        "/NodeList/0/$ns3::TrafficControlLayer/RootQueueDiscList/*/Mark",
        MakeCallback(&SwitchMark));

    for (uint32_t h = 0; h < hosts; h++)
    {
        Ptr<Socket> l = Socket::CreateSocket(endpoints.Get(h), TcpSocketFactory::GetTypeId());
        l->Bind(InetSocketAddress(Ipv4Address::GetAny(), kServerPort));
        l->Listen();
        l->SetAcceptCallback(MakeCallback(&AcceptAll), MakeCallback(&Accept));
    }
    // Handshakes 0.5 us apart, then 1 ms for the last to complete.
    g_offsetUs = g_preconnect ? g_flows.size() * 0.5 + 1000 : 0;
    for (uint32_t i = 0; i < g_flows.size(); i++)
    {
        g_byPort[kFirstPort + i] = i;
        Time connectAt = g_preconnect ? NanoSeconds(500 * i) : NanoSeconds(g_flows[i].startUs * 1000);
        Simulator::Schedule(connectAt, &StartFlow, i, endpoints.Get(g_flows[i].src),
                            hostIp[g_flows[i].dst]);
        if (g_preconnect)
        {
            Simulator::Schedule(NanoSeconds((g_offsetUs + g_flows[i].startUs) * 1000), &BeginData, i);
        }
    }
    if (!queueTraceFile.empty())
    {
        g_queueTrace.open(queueTraceFile);
        g_queueTrace << "time_us,port,packets\n";
        Simulator::Schedule(MicroSeconds(queueSampleUs), &SampleQueues, MicroSeconds(queueSampleUs));
    }
    Simulator::Stop(Seconds(limitS));
    Simulator::Run();

    std::ofstream out(outFile);
    out << "id,src,dst,bytes,start_us,rx_fct_us,retransmits,timeouts,recoveries,connect_us\n";
    for (auto& f : g_flows)
    {
        out << f.id << "," << f.src << "," << f.dst << "," << f.bytes << "," << f.startUs << ",";
        if (f.doneS >= 0 && f.sendS >= 0)
        {
            out << (f.doneS - f.sendS) * 1e6;
        }
        out << "," << f.retransmits << "," << f.timeouts << "," << f.recoveries << ",";
        if (f.connectedS >= 0)
        {
            out << f.connectedS * 1e6 - g_offsetUs - f.startUs;
        }
        out << "\n";
    }
    uint32_t late = 0;
    for (auto& f : g_flows)
    {
        late += f.connectedS >= 0 && f.sendS > 0 && f.connectedS * 1e6 - g_offsetUs > f.startUs;
    }
    std::cerr << "fct_ref: " << late << " flows started late (handshake not done)\n";
    std::cerr << "fct_ref: " << g_done << " of " << g_flows.size() << " flows completed, switch drops "
              << g_switchDrops << ", marks " << g_switchMarks << "\n";
    Simulator::Destroy();
    return 0;
}
