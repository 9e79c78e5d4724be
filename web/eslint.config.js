// Lint rules for the GUI's browser code: the ONOS overlay (ES5, as the ONOS 2.7 legacy GUI loads
// it with plain <script> tags next to AngularJS), the lab's live fabric view (browser script
// beside the vendored d3) and the headless-Chromium tests and recorder (Node).
const js = require('@eslint/js');
const globals = require('globals');

const house = {
    'strict': ['error', 'function'],
    'no-var': 'off',
    'eqeqeq': 'error',
    'no-implicit-globals': 'error',
    'no-unused-vars': ['error', {args: 'after-used'}],
    'curly': 'error',
};

module.exports = [
    js.configs.recommended,
    {
        files: ['src/main/resources/app/view/**/*.js'],
        languageOptions: {
            ecmaVersion: 5,
            sourceType: 'script',
            globals: {...globals.browser, angular: 'readonly'},
        },
        rules: house,
    },
    // Files outside web/ come in on stdin under these names (src/test/system/gui-lint.sh), as
    // ESLint 9 lints nothing outside its config's directory.
    {
        files: ['lint-stdin/lab-view/*.js'],
        languageOptions: {
            ecmaVersion: 2017,
            sourceType: 'script',
            globals: {...globals.browser, d3: 'readonly'},
        },
        rules: house,
    },
    {
        files: ['lint-stdin/browser-tests/*.js'],
        languageOptions: {
            ecmaVersion: 2022,
            sourceType: 'commonjs',
            globals: {...globals.node, ...globals.browser},
        },
        rules: {...house, 'strict': 'off'},
    },
];
