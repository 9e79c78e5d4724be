/*
 * Planck overlay: turns a planckTopovData message into the text of the overlay's panel
 * (notices, the selected host's paths and reroutes, INT/PINT hop data on hover). Plain
 * functions on window.planckTopovPanel, so the same code runs in the ONOS GUI and in the
 * test harness page.
 */
(function (global) {
    'use strict';

    function esc(s) {
        return String(s).replace(/[&<>"']/g, function (c) {
            return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
        });
    }

    function pct(u) {
        return Math.round(u * 100) + '%';
    }

    function noticesHtml(data) {
        var n = data.notices || [];
        var rows = n.map(function (x) {
            var cls = x.type === 'CONGESTED' ? ' class="congested"' : '';
            return '<li' + cls + ' data-port="' + esc(x.port) + '">' + esc(x.type) + ' ' +
                esc(x.port) + ' ' + pct(x.utilization) + ' (' + esc(x.source) + ')</li>';
        });
        var dropped = data.noticesDropped ? ' <small>(' + data.noticesDropped + ' older dropped)</small>' : '';
        return '<h3>Congestion notices' + dropped + '</h3><ul class="notices">' + rows.join('') + '</ul>';
    }

    function selectionHtml(sel) {
        if (!sel) {
            return '';
        }
        var paths = (sel.paths || []).map(function (p) {
            var hops = p.hops.map(function (h) {
                return esc(h.device) + '/' + h.port;
            }).join(' &rarr; ');
            return '<li' + (p.current ? ' class="current"' : '') + ' data-path="' + p.index + '">#' +
                p.index + (p.current ? ' (current)' : '') + ': ' + hops + '</li>';
        });
        var rr = (sel.reroutes || []).map(function (r) {
            return '<li data-flow="' + esc(r.flow) + '">' + esc(r.flow) + ': path ' + r.fromPath + ' &rarr; ' +
                r.toPath + ' in ' + r.latencyMicros + ' &micro;s' +
                (r.congestedPort ? ' (off ' + esc(r.congestedPort) + ')' : '') + '</li>';
        });
        return '<h3>Host ' + esc(sel.host) + (sel.peer ? ' &rarr; ' + esc(sel.peer) : '') + '</h3>' +
            '<ul class="paths">' + paths.join('') + '</ul>' +
            '<h3>Last reroutes</h3><ul class="reroutes">' + rr.join('') + '</ul>';
    }

    /* INT/PINT hop telemetry for one device (hover); empty when the app has none. */
    function hopsHtml(data, deviceId) {
        var rows = (data.hops || []).filter(function (h) {
            return h.device === deviceId;
        }).map(function (h) {
            var q = h.queueOccupancy === undefined ? '' : ', queue ' + h.queueOccupancy;
            return '<li>port ' + h.port + ': hop latency ' + h.hopLatencyNs + ' ns' + q + '</li>';
        });
        return rows.length ? '<h3>In-band telemetry ' + esc(deviceId) + '</h3><ul class="hops">' +
            rows.join('') + '</ul>' : '';
    }

    function panelHtml(data, hoverDevice) {
        if (data.error) {
            return '<p class="congested">' + esc(data.error) + '</p>';
        }
        var congested = (data.congestedPorts || []).length;
        return '<h3>Planck: ' + esc(data.mode) + ' &middot; ' + congested + ' congested port' +
            (congested === 1 ? '' : 's') + '</h3>' + selectionHtml(data.selection) + noticesHtml(data) +
            (hoverDevice ? hopsHtml(data, hoverDevice) : '');
    }

    global.planckTopovPanel = {
        panelHtml: panelHtml,
        hopsHtml: hopsHtml,
        pct: pct
    };
}(window));
