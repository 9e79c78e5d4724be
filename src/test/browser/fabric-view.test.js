// Loads the lab's live fabric view served by a running controller view (URL in argv[2]) and
// checks the DOM: every fat-tree link drawn, the congested uplink marked and labelled with its
// load, the 40 % link coloured, TE moves arriving, the latency histogram; saves a screenshot.
//   node fabric-view.test.js <url> <hot-port> <screenshot.png>
const { launch, check } = require('./browser');

(async () => {
    const [url, hotPort, shot] = process.argv.slice(2);
    const b = await launch();
    try {
        const page = await b.context.newPage();
        await page.goto(url, { timeout: 10000 });
        await page.waitForSelector('line.link', { timeout: 10000 });
        // Two polls so the moves counter has a before and an after.
        await page.waitForFunction(() => document.querySelectorAll('#moves li').length > 0, null, { timeout: 5000 });

        const links = await page.$$eval('line.link', ls => ls.map(l => ({
            id: l.getAttribute('data-id'),
            load: +l.getAttribute('data-load-bps'),
            congested: l.classList.contains('congested'),
            stroke: l.getAttribute('stroke'),
        })));
        check(links.length === 32, `all 32 switch-to-switch links of the k=4 fat tree drawn (${links.length})`);
        check(await page.$$eval('rect.switch', r => r.length) === 20, '20 switches drawn');
        check(await page.$$eval('circle.host', r => r.length) === 16, '16 hosts drawn');

        const hot = links.filter(l => l.congested);
        check(hot.length === 1, `exactly one congested link blinking (${hot.length})`);
        check(hot[0].id.includes(hotPort) || hot[0].id.split('-').some(e => e === hotPort),
            `the congested link is the one of port ${hotPort} (${hot[0].id})`);
        check(hot[0].load === 9500000000, `congested link carries 95 % of 10 Gb/s (${hot[0].load})`);
        check(hot[0].stroke === '#d62728', 'congested link drawn red');
        const label = await page.$eval(`text.link-label[data-id="${hot[0].id}"]`, t => t.textContent);
        check(label === '95% 9.50 Gbps', `its label reads "${label}"`);
        const warm = links.filter(l => l.load === 4000000000);
        check(warm.length === 1 && warm[0].stroke === '#2ca02c', 'the 40 % link is drawn green with its load');
        check(links.filter(l => l.load === 0).length === 30, 'the 30 idle links carry no load');
        const blink = await page.$eval('line.link.congested', l => getComputedStyle(l).animationName);
        check(blink === 'blink', `congested link animation: ${blink}`);
        const listed = await page.$$eval('#congested li', li => li.map(x => x.textContent).join());
        check(listed === hotPort, `congested port listed (${listed})`);

        // Moves: the fixture adds one a second; the page must show it within a second.
        const count = async () => +(await page.$eval('#moves-total', e => e.textContent)).replace(/\D/g, '');
        const before = await count();
        const t0 = Date.now();
        await page.waitForFunction(n => +document.querySelector('#moves-total').textContent.replace(/\D/g, '') > n,
            before, { timeout: 3000 });
        const shownAfter = Date.now() - t0;
        check(shownAfter <= 1600, `a new move appeared ${shownAfter} ms after the previous count (fixture adds one per 1000 ms, page polls every 500 ms)`);
        check(await page.$$eval('#moves li.fresh', l => l.length) >= 1, 'the new move is highlighted');
        const bars = await page.$$eval('#histogram rect.bar', r => r.map(x => +x.getAttribute('data-count')));
        check(bars.reduce((a, c) => a + c, 0) === 5, `latency histogram holds the 5 samples (${bars})`);

        // Pause (key p) freezes the page; resuming brings updates back.
        const updated = () => page.$eval('body', b => b.getAttribute('data-updated'));
        await page.keyboard.press('p');
        const frozen = await updated();
        await page.waitForTimeout(1200);
        check(await updated() === frozen && await page.$eval('body', b => b.classList.contains('paused')),
            'paused: no update for 1.2 s (page polls every 500 ms)');
        await page.keyboard.press('p');
        await page.waitForFunction(u => document.body.getAttribute('data-updated') !== u, frozen, { timeout: 2000 });
        check(!(await page.$eval('body', b => b.classList.contains('paused'))), 'resumed: updates again');

        await page.screenshot({ path: shot });
        console.log('screenshot: ' + shot);
    } finally {
        await b.close();
    }
})().catch(e => {
    console.error(e.message || e);
    process.exit(1);
});
