/* The page scripts' linter and formatter (`make check` checks, `make format` applies): ESLint's
   recommended rules, and @stylistic's rules for one layout (docs/judge-page.md, "Its scripts").
   The packages are pinned in the Makefile and installed into build/node, where this reads them. */
import { createRequire } from "node:module";

const require = createRequire(new URL("build/node/package.json", import.meta.url));
const js = require("@eslint/js");
const globals = require("globals");
const stylistic = require("@stylistic/eslint-plugin");

const layout = stylistic.configs.customize({
  indent: 2, quotes: "double", semi: true, braceStyle: "1tbs", arrowParens: true, commaDangle: "always-multiline",
});

export default [
  { ignores: ["build/", ".venv/", "test-output/"] },
  js.configs.recommended,
  layout,
  {
    files: ["**/*.js"],
    // ES2021, what the page already asks of a phone (`||=`): Safari 14, Chrome 85, Firefox 79
    languageOptions: { ecmaVersion: 2021, sourceType: "script" },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "no-undef": "error",
      "no-unused-vars": ["error", { vars: "all", args: "after-used", caughtErrors: "none" }],
      // one generation of the language: block-scoped names, arrow callbacks, shorthand properties
      "no-var": "error",
      "prefer-const": ["error", { destructuring: "all" }],
      "prefer-arrow-callback": "error",
      "object-shorthand": ["error", "properties"],
      // the scripts' own layout: short statements share a line (each newline is a byte the page
      // pays for), an operator ends the line it breaks, and a comment after code is set off by
      // two spaces (service/static_files.py drops it from what is served only then)
      "@stylistic/max-statements-per-line": "off",
      "@stylistic/multiline-ternary": "off",
      "@stylistic/no-mixed-operators": "off",
      "@stylistic/operator-linebreak": ["error", "after"],
      "@stylistic/no-multi-spaces": ["error", { ignoreEOLComments: true }],
      "@stylistic/indent": ["error", 2, {
        ...layout.rules["@stylistic/indent"][2], offsetTernaryExpressions: false, flatTernaryExpressions: true,
      }],
      "@stylistic/quotes": ["error", "double", { avoidEscape: true }],
      "@stylistic/max-len": ["error", {
        code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreComments: true, ignoreUrls: true,
      }],
    },
  },
  {
    // A script written in parts (service/static_files.py: PARTS) is joined inside one function:
    // a part's top-level `screen` or `open` is that function's, and shadows the browser's.
    files: ["service/static/judge/*.js", "service/static/director/*.js", "service/static/lexicon/*.js"],
    rules: { "no-redeclare": ["error", { builtinGlobals: false }] },
  },
  // each script with the names of where it runs: a page, the service worker, Node
  {
    files: ["service/static/**/*.js", "bench/chromium_page.js"],
    ignores: ["service/static/sw.js"],
    languageOptions: { globals: globals.browser },
  },
  { files: ["service/static/sw.js"], languageOptions: { globals: globals.serviceworker } },
  { files: ["tests/**/*.js", "bench/browser_node.js"], languageOptions: { globals: globals.node } },
  { files: ["*.mjs"], languageOptions: { ecmaVersion: "latest", sourceType: "module", globals: globals.node } },
];
