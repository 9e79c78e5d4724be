// Records the lab's live fabric view during a real lab run, in headless Chromium:
//  - opens the page as soon as the lab serves it, polling every SNAPSHOT_POLL_MS (?poll=) so
//    that a run of a few hundred milliseconds is caught while its flows move;
//  - notes when each TE move first appears in the page's move list (from the page's own
//    "planck:rendered" event, i.e. right after the DOM was drawn) so that the lab's move log
//    (moves.csv) can say how long a move took to reach the screen;
//  - the first time a PlanckTE run is drawn with links carrying load and a move listed, pauses
//    the page in that same event (so nothing redraws in between), reads the DOM, saves a
//    screenshot, resumes at the page's default poll interval (FOLLOW_POLL_MS), as an operator
//    sees it, and takes less CPU from the loop it watches;
//  - keeps noting moves until the lab stops serving the page or FOLLOW_S after the screenshot.
// Writes <out>/live-view.json; the lab's report step (org.planck.lab.report) judges it.
//   node lab-live-view.js <url> <outdir> [max-seconds]
const fs = require('fs');
const path = require('path');
const { launch } = require('./browser');

const SNAPSHOT_POLL_MS = 50;
const FOLLOW_POLL_MS = 500;
const FOLLOW_S = 30;
const SNAPSHOT_MODE = 'PLANCK';

const sleep = ms => new Promise(r => setTimeout(r, ms));

async function serving(url) {
    try {
        const r = await fetch(new URL('api/view', url), { signal: AbortSignal.timeout(2000) });
        return r.ok;
    } catch {
        return false;
    }
}

// Runs inside the page before its own scripts: listens to every drawing.
function recorder(snapshotMode) {
    const rec = { firstRenderMs: 0, moves: {}, snapshot: null, pauseStartMs: 0, pauseEndMs: 0, renders: 0 };
    window.__planckRecorder = rec;
    document.addEventListener('planck:rendered', e => {
        const view = e.detail;
        const now = Date.now();
        rec.renders++;
        if (!view.running) {
            return;
        }
        if (!rec.firstRenderMs) {
            rec.firstRenderMs = now;
        }
        document.querySelectorAll('#moves li[data-flow]').forEach(li => {
            const key = li.getAttribute('data-flow') + '@' + li.getAttribute('data-time');
            if (!(key in rec.moves)) {
                rec.moves[key] = { flow: li.getAttribute('data-flow'), timeMillis: +li.getAttribute('data-time'),
                    shownAtMs: now, mode: view.mode, pollMs: window.planckView.pollMs() };
            }
        });
        if (rec.snapshot || view.mode !== snapshotMode) {
            return;
        }
        const links = Array.from(document.querySelectorAll('line.link'));
        const loads = links.map(l => +l.getAttribute('data-load-bps'));
        const listed = document.querySelectorAll('#moves li[data-flow]').length;
        if (!loads.some(x => x > 0) || listed === 0) {
            return;
        }
        window.planckView.pause();
        rec.pauseStartMs = now;
        const label = id => {
            const t = document.querySelector('text.link-label[data-id="' + id + '"]');
            return t ? t.textContent : '';
        };
        rec.snapshot = {
            takenAtMs: now,
            mode: view.mode,
            run: view.run,
            status: document.querySelector('#status').textContent,
            topologyLinks: view.topology.links.length,
            linksDrawn: links.length,
            linksLoaded: loads.filter(x => x > 0).length,
            maxLoadBps: Math.max.apply(null, loads),
            loadedLabels: links.filter(l => +l.getAttribute('data-load-bps') > 0)
                .map(l => label(l.getAttribute('data-id'))),
            congestedLinks: document.querySelectorAll('line.link.congested').length,
            congestedPortsListed: document.querySelectorAll('#congested li').length,
            switches: document.querySelectorAll('rect.switch').length,
            hosts: document.querySelectorAll('circle.host').length,
            movesListed: listed,
            movesTotal: view.movesTotal,
            firstMove: document.querySelector('#moves li').textContent,
            firstMoveFlow: document.querySelector('#moves li').getAttribute('data-flow'),
            firstMoveTime: +document.querySelector('#moves li').getAttribute('data-time'),
            histogramSamples: (view.latencyHistogram || {}).count || 0,
        };
    });
}

(async () => {
    const [url, out, maxArg] = process.argv.slice(2);
    const deadline = Date.now() + 1000 * (+maxArg || 900);
    const result = { url, pollMs: SNAPSHOT_POLL_MS, followPollMs: FOLLOW_POLL_MS, snapshotMode: SNAPSHOT_MODE, status: 'failed', reason: '',
        screenshot: null, snapshot: null, moves: [], startedAtMs: Date.now() };
    const write = () => fs.writeFileSync(path.join(out, 'live-view.json'), JSON.stringify(result, null, 1));

    while (!(await serving(url))) {
        if (Date.now() > deadline) {
            result.reason = 'the lab never served ' + url;
            write();
            return;
        }
        await sleep(200);
    }
    const b = await launch();
    try {
        const page = await b.context.newPage();
        const errors = [];
        page.on('pageerror', e => errors.push(e.message));
        await page.addInitScript(recorder, SNAPSHOT_MODE);
        const pageUrl = new URL(url);
        pageUrl.searchParams.set('poll', SNAPSHOT_POLL_MS);
        await page.goto(pageUrl.href, { timeout: 15000 });
        result.pageUrl = pageUrl.href;

        let followUntil = Infinity;
        let shot = false;
        let gone = 0;
        for (;;) {
            await sleep(100);
            const rec = await page.evaluate(() => window.__planckRecorder);
            if (rec.snapshot && !shot) {
                result.screenshot = 'lab-live-view.png';
                await page.screenshot({ path: path.join(out, result.screenshot) });
                await page.evaluate(ms => {
                    window.__planckRecorder.pauseEndMs = Date.now();
                    window.planckView.setPollMs(ms);
                    window.planckView.resume();
                }, FOLLOW_POLL_MS);
                shot = true;
                followUntil = Date.now() + FOLLOW_S * 1000;
            }
            // The lab is over when it stops serving the page.
            gone = (await serving(url)) ? 0 : gone + 1;
            if (gone >= 3 || Date.now() > followUntil || Date.now() > deadline) {
                break;
            }
        }
        const rec = await page.evaluate(() => window.__planckRecorder);
        Object.assign(result, {
            snapshot: rec.snapshot,
            firstRenderMs: rec.firstRenderMs,
            pauseStartMs: rec.pauseStartMs,
            pauseEndMs: rec.pauseEndMs,
            renders: rec.renders,
            moves: Object.values(rec.moves),
            pageErrors: errors,
        });
        if (shot) {
            result.status = 'recorded';
        } else {
            result.reason = rec.firstRenderMs
                ? 'no ' + SNAPSHOT_MODE + ' run was drawn with loaded links and a move listed'
                : 'the page never drew a run';
        }
    } catch (e) {
        result.reason = String(e.message || e).split('\n')[0];
    } finally {
        await b.close();
        result.endedAtMs = Date.now();
        write();
    }
})().catch(e => {
    console.error(e.message || e);
    process.exit(1);
});
