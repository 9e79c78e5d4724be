// Reference for planck-emu's accuracy experiment (Flexplane §5, Fig. 4):
// servers and clients on one switch, flows read from a CSV, TCP NewReno with
// SACK (or DCTCP), FCT to the last byte at the receiver.
//
// Build: g++ -O2 -std=c++17 fct_ref.cc $(pkg-config --cflags --libs ns3-...) -o fct_ref
// Run:   fct_ref --flows=flows.csv --out=fct.csv --scheme=droptail|dctcp
//        [--hosts=36] [--gbps=10] [--delayUs=1.2] [--buffer=1024] [--k=65]
//
// flows.csv: id,src,dst,bytes,start_us (endpoint ids 0..hosts-1).
// fct.csv:   id,src,dst,bytes,start_us,rx_fct_us (start: the sender's
//            connection is established and its first data leaves).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

struct Flow
{
    uint32_t id, src, dst;
    uint64_t bytes;
    double startUs;
    uint64_t queued = 0;   // bytes handed to the socket
    uint64_t received = 0; // bytes at the receiver
    double connectedS = -1, doneS = -1;
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
    Fill(s, 0);
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
    std::string flowsFile, outFile, scheme = "droptail";
    uint32_t hosts = 36, buffer = 1024, k = 65, initCwnd = 10;
    double gbps = 10, delayUs = 1.2, minRtoMs = 10, limitS = 60;
    CommandLine cmd;
    cmd.AddValue("flows", "flows CSV (id,src,dst,bytes,start_us)", flowsFile);
    cmd.AddValue("out", "output CSV", outFile);
    cmd.AddValue("scheme", "droptail or dctcp", scheme);
    cmd.AddValue("hosts", "endpoints on the switch", hosts);
    cmd.AddValue("gbps", "link rate", gbps);
    cmd.AddValue("delayUs", "propagation delay per link", delayUs);
    cmd.AddValue("buffer", "switch port buffer, packets", buffer);
    cmd.AddValue("k", "DCTCP marking threshold, packets", k);
    cmd.AddValue("initCwnd", "initial window, segments", initCwnd);
    cmd.AddValue("minRtoMs", "minimum RTO", minRtoMs);
    cmd.AddValue("limitS", "simulated time limit", limitS);
    cmd.Parse(argc, argv);
    if (flowsFile.empty() || outFile.empty() || (scheme != "droptail" && scheme != "dctcp"))
    {
        std::cerr << "fct_ref: need --flows, --out and --scheme=droptail|dctcp\n";
        return 2;
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
                       TypeIdValue(scheme == "dctcp" ? TcpDctcp::GetTypeId()
                                                     : TcpNewReno::GetTypeId()));
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
    if (scheme == "dctcp")
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
        Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(1.0 / 16));
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
        // Instantaneous queue (QW = 1), mark at K (MinTh = MaxTh = K), never drop early.
        tcSwitch.SetRootQueueDisc("ns3::RedQueueDisc",
                                  "MaxSize", QueueSizeValue(QueueSize(qsize.str())),
                                  "QW", DoubleValue(1.0),
                                  "MinTh", DoubleValue(k),
                                  "MaxTh", DoubleValue(k),
                                  "UseEcn", BooleanValue(true),
                                  "UseHardDrop", BooleanValue(false),
                                  "Gentle", BooleanValue(false),
                                  "MeanPktSize", UintegerValue(1500));
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
        tcHost.Install(d.Get(0));
        tcSwitch.Install(d.Get(1));
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
    for (uint32_t i = 0; i < g_flows.size(); i++)
    {
        g_byPort[kFirstPort + i] = i;
        Simulator::Schedule(MicroSeconds(g_flows[i].startUs), &StartFlow, i,
                            endpoints.Get(g_flows[i].src), hostIp[g_flows[i].dst]);
    }
    Simulator::Stop(Seconds(limitS));
    Simulator::Run();

    std::ofstream out(outFile);
    out << "id,src,dst,bytes,start_us,rx_fct_us\n";
    for (auto& f : g_flows)
    {
        out << f.id << "," << f.src << "," << f.dst << "," << f.bytes << "," << f.startUs << ",";
        if (f.doneS >= 0 && f.connectedS >= 0)
        {
            out << (f.doneS - f.connectedS) * 1e6;
        }
        out << "\n";
    }
    std::cerr << "fct_ref: " << g_done << " of " << g_flows.size() << " flows completed, switch drops "
              << g_switchDrops << ", marks " << g_switchMarks << "\n";
    Simulator::Destroy();
    return 0;
}
