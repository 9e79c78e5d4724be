// The ONOS overlay's scripts (planckTopovPanel.js, planckTopovOverlay.js) in a harness page
// that stands in for the legacy GUI's AngularJS module system, TopoOverlayService and
// WebSocketService, fed the planckTopovData messages the Java handler sent in its tests.
//   node overlay.test.js <dir of the scripts> <dir of sample messages> <screenshot.png>
const fs = require('fs');
const path = require('path');
const { launch, check } = require('./browser');

const HARNESS = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>overlay harness</title></head>
<body><div id="ov-topo"><svg width="600" height="300"></svg></div>
<script>
  // What the ONOS GUI gives an overlay: angular.module(...).run([...deps, fn]),
  // TopoOverlayService.register(overlay), WebSocketService send/bind.
  window.sent = [];
  window.handlers = {};
  var wss = {
    sendEvent: function (ev, payload) { window.sent.push({event: ev, payload: payload}); },
    bindHandlers: function (h) { Object.keys(h).forEach(function (k) { window.handlers[k] = h[k]; }); },
    unbindHandlers: function (h) { Object.keys(h).forEach(function (k) { delete window.handlers[k]; }); }
  };
  var tov = { register: function (o) { window.overlay = o; } };
  var log = { debug: function () {}, info: function () {} };
  window.angular = { module: function (name) {
    window.moduleName = name;
    return { run: function (arr) { arr[arr.length - 1](log, tov, wss); return this; } };
  } };
</script></body></html>`;

(async () => {
    const [scripts, samples, shot] = process.argv.slice(2);
    const sample = n => JSON.parse(fs.readFileSync(path.join(samples, n + '.json'), 'utf8'));
    const b = await launch();
    try {
        const page = await b.context.newPage();
        const errors = [];
        page.on('pageerror', e => errors.push(e.message));
        await page.setContent(HARNESS);
        await page.addScriptTag({ path: path.join(scripts, 'planckTopovPanel.js') });
        await page.addScriptTag({ path: path.join(scripts, 'planckTopovOverlay.js') });
        await page.addStyleTag({ path: path.join(scripts, 'planckTopov.css') });

        check(await page.evaluate(() => window.moduleName) === 'ovPlanckTopov',
            'registers the AngularJS module the GUI loads for view planckTopov');
        const ov = await page.evaluate(() => ({
            id: window.overlay.overlayId,
            keys: window.overlay.keyBindings._keyOrder,
            buttons: Object.keys(window.overlay.buttons),
        }));
        check(ov.id === 'planck-overlay', 'overlay id matches the Java UiTopoOverlay');
        check(ov.keys.join() === '1,2,3', `key bindings 1, 2, 3 (${ov.keys})`);
        check(ov.buttons.join() === 'load,congestion,paths', 'three buttons');

        await page.evaluate(() => window.overlay.activate());
        let sent = await page.evaluate(() => window.sent);
        check(sent[0].event === 'planckTopovStart' && sent[0].payload.mode === 'load', 'activate starts the overlay in load mode');

        // Congestion mode: the notice from the handler test.
        await page.evaluate(() => window.overlay.keyBindings['2'].cb());
        sent = await page.evaluate(() => window.sent);
        check(sent[sent.length - 1].event === 'planckTopovMode' && sent[sent.length - 1].payload.mode === 'congestion',
            'key 2 switches the server to congestion mode');
        const congestion = sample('congestion');
        await page.evaluate(d => window.handlers.planckTopovData(d), congestion);
        const notice = await page.$eval('#planck-topov-panel li.congested', li => ({ port: li.getAttribute('data-port'), text: li.textContent }));
        check(notice.port === congestion.notices[0].port, `the congestion notice is listed and marked (${notice.text})`);
        check((await page.$eval('#planck-topov-panel h3', h => h.textContent)).includes('1 congested port'),
            'panel title counts the congested port');

        // Paths mode: selecting a host asks for its paths; the handler's answer is shown.
        await page.evaluate(() => window.overlay.hooks.singleSelect({ class: 'host', id: '00:00:00:00:00:0A/None' }));
        sent = await page.evaluate(() => window.sent);
        const last2 = sent.slice(-2).map(m => m.event + ':' + JSON.stringify(m.payload));
        check(last2[0] === 'planckTopovMode:{"mode":"paths"}' && last2[1] === 'planckTopovSelect:{"id":"00:00:00:00:00:0A/None"}',
            'selecting a host switches to paths mode and selects it');
        const paths = sample('paths');
        await page.evaluate(d => window.handlers.planckTopovData(d), paths);
        const cur = await page.$eval('#planck-topov-panel ul.paths li.current', li => li.textContent);
        check(cur.includes('(current)') && cur.includes('of:0000000000000001/2'), `current shadow path shown: ${cur}`);
        const rr = await page.$eval('#planck-topov-panel ul.reroutes li', li => li.textContent);
        check(rr.includes('87 µs') && rr.includes('path 1 → 0'), `last reroute with its latency: ${rr}`);

        // INT/PINT: the handler sends hops:[] today; when present, hovering a device shows them.
        const withHops = Object.assign({}, paths, { hops: [{ device: 'of:0000000000000001', port: 2, hopLatencyNs: 1200, queueOccupancy: 37 }] });
        await page.evaluate(d => window.handlers.planckTopovData(d), withHops);
        check(await page.$('#planck-topov-panel ul.hops') === null, 'no hop data shown without a hover');
        await page.evaluate(() => window.overlay.hooks.mouseOver({ class: 'device', id: 'of:0000000000000001' }));
        const hop = await page.$eval('#planck-topov-panel ul.hops li', li => li.textContent);
        check(hop === 'port 2: hop latency 1200 ns, queue 37', `hover shows INT hop data: ${hop}`);
        await page.screenshot({ path: shot, fullPage: true });
        await page.evaluate(() => window.overlay.hooks.mouseOver({ class: 'device', id: 'of:0000000000000009' }));
        check(await page.$('#planck-topov-panel ul.hops') === null, 'a device without hop data shows none');

        // Text from the network is escaped, not run.
        const evil = Object.assign({}, congestion, { notices: [{ port: '<img src=x onerror="window.pwned=1">', type: 'CONGESTED', utilization: 1, source: 'COLLECTOR' }] });
        await page.evaluate(d => window.handlers.planckTopovData(d), evil);
        check(await page.evaluate(() => window.pwned === undefined && !document.querySelector('#planck-topov-panel img')),
            'a port name with markup is shown as text');
        await page.evaluate(d => window.handlers.planckTopovData(d), { error: 'unknown mode: rainbow' });
        check((await page.$eval('#planck-topov-panel', p => p.textContent)).includes('unknown mode: rainbow'), 'server errors are shown');

        await page.evaluate(() => window.overlay.deactivate());
        sent = await page.evaluate(() => window.sent);
        check(sent[sent.length - 1].event === 'planckTopovStop', 'deactivate stops the server side');
        check(await page.$('#planck-topov-panel') === null, 'deactivate removes the panel');
        check(errors.length === 0, `no script errors (${errors.join('; ')})`);
        console.log('screenshot: ' + shot);
    } finally {
        await b.close();
    }
})().catch(e => {
    console.error(e.message || e);
    process.exit(1);
});
