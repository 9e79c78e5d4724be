// Lint rules for the overlay's browser code (ES5, as the ONOS 2.7 legacy GUI loads it
// with plain <script> tags next to AngularJS).
const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
    js.configs.recommended,
    {
        files: ['src/main/resources/app/view/**/*.js'],
        languageOptions: {
            ecmaVersion: 5,
            sourceType: 'script',
            globals: {...globals.browser, angular: 'readonly'},
        },
        rules: {
            'strict': ['error', 'function'],
            'no-var': 'off',
            'eqeqeq': 'error',
            'no-implicit-globals': 'error',
            'no-unused-vars': ['error', {args: 'after-used'}],
            'curly': 'error',
        },
    },
];
