/*
 * Planck lab live fabric view: polls /api/view (every 500 ms; ?poll=MS for 50-5000) and draws the fabric by tier,
 * each link coloured and labelled with the load of its busier direction, congested links
 * blinking, TE moves as they arrive (the link a move left flashes dashed), and the
 * loop-latency histogram. The JSON's links/congestedPorts/moves have the shapes of the ONOS
 * overlay's planckTopovData message. Pause (button or key p) freezes the page to look at it;
 * after each drawing the page fires "planck:rendered" on document (detail: the view), which
 * the lab's browser recorder listens to.
 */
(function () {
    'use strict';

    var POLL_MS = pollInterval(new URLSearchParams(window.location.search).get('poll'));
    var paused = false;
    var svg = d3.select('#fabric');
    var width = +svg.attr('width');
    var height = +svg.attr('height');
    var drawnTopology = null;
    var seenMoves = 0;
    var positions = {};

    function pollInterval(param) {
        var ms = parseInt(param, 10);
        return isNaN(ms) ? 500 : Math.min(5000, Math.max(50, ms));
    }

    function colour(u, congested) {
        if (congested || u >= 0.9) {
            return '#d62728';
        }
        if (u >= 0.7) {
            return '#ff7f0e';
        }
        return u >= 0.5 ? '#e6c200' : (u > 0 ? '#2ca02c' : '#bbb');
    }

    function rate(bps) {
        if (bps >= 1e9) {
            return (bps / 1e9).toFixed(2) + ' Gbps';
        }
        return bps >= 1e6 ? (bps / 1e6).toFixed(1) + ' Mbps' : Math.round(bps / 1e3) + ' kbps';
    }

    function layout(topo) {
        var tiers = [[], [], [], []];
        topo.switches.forEach(function (s) {
            tiers[s.tier].push(s.id);
        });
        positions = {};
        tiers.forEach(function (ids, t) {
            ids.sort();
            ids.forEach(function (id, i) {
                positions[id] = {x: (i + 1) * width / (ids.length + 1), y: 60 + t * (height - 160) / 2};
            });
        });
        var byEdge = {};
        topo.hosts.forEach(function (h) {
            (byEdge[h.device] = byEdge[h.device] || []).push(h.mac);
        });
        Object.keys(byEdge).forEach(function (dev) {
            var n = byEdge[dev].length;
            byEdge[dev].sort().forEach(function (mac, i) {
                positions[mac] = {x: positions[dev].x + (i - (n - 1) / 2) * 22, y: height - 40};
            });
        });
    }

    function drawTopology(topo) {
        layout(topo);
        svg.selectAll('*').remove();
        var lines = svg.append('g').attr('class', 'links');
        lines.selectAll('line.link').data(topo.links, function (l) { return l.id; }).enter()
            .append('line').attr('class', 'link').attr('data-id', function (l) { return l.id; })
            .attr('x1', function (l) { return positions[l.a].x; }).attr('y1', function (l) { return positions[l.a].y; })
            .attr('x2', function (l) { return positions[l.b].x; }).attr('y2', function (l) { return positions[l.b].y; })
            .attr('stroke', '#bbb');
        lines.selectAll('text.link-label').data(topo.links, function (l) { return l.id; }).enter()
            .append('text').attr('class', 'link-label').attr('data-id', function (l) { return l.id; })
            .attr('text-anchor', 'middle').attr('dy', -3)
            .each(function (l) {
                // A third of the way up from the lower switch, along the link: crossing links
                // of a fat tree share their midpoints, so labels there would overlap.
                var lo = positions[l.a].y >= positions[l.b].y ? positions[l.a] : positions[l.b];
                var hi = lo === positions[l.a] ? positions[l.b] : positions[l.a];
                var x = lo.x + (hi.x - lo.x) / 3;
                var y = lo.y + (hi.y - lo.y) / 3;
                var angle = Math.atan2(hi.y - lo.y, hi.x - lo.x) * 180 / Math.PI;
                if (angle < -90) {
                    angle += 180;
                }
                d3.select(this).attr('x', x).attr('y', y)
                    .attr('transform', 'rotate(' + angle.toFixed(1) + ',' + x.toFixed(1) + ',' + y.toFixed(1) + ')');
            });
        var hostLinks = svg.append('g');
        topo.hosts.forEach(function (h) {
            hostLinks.append('line').attr('stroke', '#ddd')
                .attr('x1', positions[h.mac].x).attr('y1', positions[h.mac].y)
                .attr('x2', positions[h.device].x).attr('y2', positions[h.device].y);
        });
        var nodes = svg.append('g');
        nodes.selectAll('rect.switch').data(topo.switches).enter().append('rect').attr('class', 'switch')
            .attr('data-id', function (s) { return s.id; })
            .attr('x', function (s) { return positions[s.id].x - 12; }).attr('y', function (s) { return positions[s.id].y - 9; })
            .attr('width', 24).attr('height', 18);
        nodes.selectAll('text.node-label').data(topo.switches).enter().append('text').attr('class', 'node-label')
            .attr('x', function (s) { return positions[s.id].x - 12; }).attr('y', function (s) { return positions[s.id].y - 12; })
            .text(function (s) { return s.id.replace(/^of:0+/, 's'); });
        nodes.selectAll('circle.host').data(topo.hosts).enter().append('circle').attr('class', 'host')
            .attr('data-mac', function (h) { return h.mac; })
            .attr('cx', function (h) { return positions[h.mac].x; }).attr('cy', function (h) { return positions[h.mac].y; })
            .attr('r', 6);
    }

    function drawLoads(view) {
        var byId = {};
        view.links.forEach(function (l) {
            byId[l.id] = l;
        });
        var moved = {};
        view.moves.slice(0, Math.max(0, view.movesTotal - seenMoves)).forEach(function (m) {
            if (m.congestedPort) {
                moved[m.congestedPort] = true;
            }
        });
        svg.selectAll('line.link').each(function (d) {
            var l = byId[d.id];
            var sel = d3.select(this);
            sel.attr('stroke', l ? colour(l.utilization, l.congested) : '#bbb')
                .attr('data-load-bps', l ? l.loadBps : 0)
                .classed('congested', !!(l && l.congested))
                .classed('moved', !!(l && moved[l.port]));
        });
        svg.selectAll('text.link-label').text(function (d) {
            var l = byId[d.id];
            return l && l.loadBps > 0 ? Math.round(l.utilization * 100) + '% ' + rate(l.loadBps) : '';
        });
    }

    function drawSide(view) {
        var c = d3.select('#congested').selectAll('li').data(view.congestedPorts, function (p) { return p; });
        c.exit().remove();
        c.enter().append('li').merge(c).attr('data-port', function (p) { return p; }).text(function (p) { return p; });

        var fresh = view.movesTotal - seenMoves;
        d3.select('#moves-total').text('(' + view.movesTotal + ' in all)');
        var m = d3.select('#moves').selectAll('li').data(view.moves);
        m.exit().remove();
        m.enter().append('li').merge(m)
            .classed('fresh', function (d, i) { return i < fresh; })
            .attr('data-flow', function (d) { return d.flow; })
            .attr('data-time', function (d) { return d.timeMillis; })
            .text(function (d) {
                return d.flow + ': path ' + d.fromPath + ' → ' + d.toPath + ', ' + d.latencyMicros + ' µs' +
                    (d.congestedPort ? ' (off ' + d.congestedPort + ')' : '');
            });
        seenMoves = view.movesTotal;
        drawHistogram(view.latencyHistogram);
    }

    function drawHistogram(h) {
        var hs = d3.select('#histogram');
        var w = +hs.attr('width');
        var ht = +hs.attr('height') - 30;
        hs.selectAll('*').remove();
        if (!h || !h.bins.length) {
            hs.append('text').attr('x', 10).attr('y', 20).text('no moves applied yet');
            return;
        }
        var x = d3.scaleBand().domain(h.bins.map(function (b) { return b.lo; })).range([30, w - 5]).padding(0.1);
        var y = d3.scaleLinear().domain([0, d3.max(h.bins, function (b) { return b.count; })]).nice().range([ht, 5]);
        hs.append('g').selectAll('rect').data(h.bins).enter().append('rect').attr('class', 'bar')
            .attr('data-lo', function (b) { return b.lo; }).attr('data-count', function (b) { return b.count; })
            .attr('x', function (b) { return x(b.lo); }).attr('width', x.bandwidth())
            .attr('y', function (b) { return y(b.count); }).attr('height', function (b) { return ht - y(b.count); });
        hs.append('g').attr('transform', 'translate(0,' + ht + ')')
            .call(d3.axisBottom(x).tickValues(x.domain().filter(function (d, i) { return i % 3 === 0; })));
        hs.append('g').attr('transform', 'translate(30,0)').call(d3.axisLeft(y).ticks(4));
        hs.append('text').attr('x', w - 150).attr('y', 15).attr('class', 'node-label')
            .text('n=' + h.count + ' p50=' + h.p50 + ' p99=' + h.p99);
    }

    function setPaused(p) {
        paused = p;
        document.body.classList.toggle('paused', p);
        d3.select('#pause').text(p ? 'Resume (p)' : 'Pause (p)');
    }

    function poll() {
        if (paused) {
            setTimeout(poll, POLL_MS);
            return;
        }
        d3.json('api/view').then(function (view) {
            if (paused) {
                return;
            }
            var status = d3.select('#status').classed('stale', false);
            document.body.setAttribute('data-running', !!view.running);
            if (!view.running) {
                status.text('no run in progress');
                document.dispatchEvent(new CustomEvent('planck:rendered', {detail: view}));
                return;
            }
            var topoKey = JSON.stringify(view.topology);
            if (topoKey !== drawnTopology) {
                drawTopology(view.topology);
                drawnTopology = topoKey;
            }
            drawLoads(view);
            drawSide(view);
            status.text((view.run || view.mode) + ' (mode ' + view.mode + '), updated ' + new Date(view.timeMillis).toLocaleTimeString());
            document.body.setAttribute('data-updated', view.timeMillis);
            document.body.setAttribute('data-mode', view.mode);
            document.dispatchEvent(new CustomEvent('planck:rendered', {detail: view}));
        }).catch(function (e) {
            d3.select('#status').classed('stale', true).text('controller unreachable: ' + e);
        }).finally(function () {
            setTimeout(poll, POLL_MS);
        });
    }

    window.planckView = {
        pollMs: function () { return POLL_MS; },
        setPollMs: function (ms) {
            POLL_MS = pollInterval(ms);
            d3.select('#poll').text('polls every ' + POLL_MS + ' ms');
        },
        pause: function () { setPaused(true); },
        resume: function () { setPaused(false); },
        isPaused: function () { return paused; },
    };
    d3.select('#pause').on('click', function () { setPaused(!paused); });
    d3.select(document).on('keydown', function (e) {
        if (e.key === 'p') {
            setPaused(!paused);
        }
    });
    d3.select('#poll').text('polls every ' + POLL_MS + ' ms');
    poll();
}());
