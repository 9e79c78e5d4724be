// Headless Debian Chromium for the tests, with the flags that work on a closed network.
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

async function launch() {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
        executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
        headless: true,
        viewport: { width: 1280, height: 680 },
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    return {
        context,
        async close() {
            await context.close();
            fs.rmSync(profile, { recursive: true, force: true });
        },
    };
}

function check(cond, what) {
    if (!cond) {
        throw new Error('FAIL: ' + what);
    }
    console.log('ok   - ' + what);
}

module.exports = { launch, check };
