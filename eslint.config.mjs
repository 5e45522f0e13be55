// ESLint flat config: typescript-eslint's type-aware rules over every TypeScript source and test
// of the workspace, the core JavaScript rules over the untyped .mjs/.js scripts.
// `pnpm lint` (turbo task //#eslint, a dependency of every package's lint) runs it.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

const nodeGlobals = Object.fromEntries(
  [
    "process", "console", "Buffer", "URL", "URLSearchParams", "TextEncoder", "TextDecoder", "setTimeout", "clearTimeout",
    "setInterval", "clearInterval", "setImmediate", "clearImmediate", "queueMicrotask", "structuredClone", "fetch",
    "AbortController", "AbortSignal", "performance", "globalThis", "WebAssembly", "Response", "Request", "Headers",
    "crypto", "SharedArrayBuffer", "Atomics", "Blob", "atob", "btoa", "Worker", "self", "postMessage", "navigator",
    "document", "window", "location",
  ].map((name) => [name, "readonly"]),
);

export default defineConfig(
  {
    ignores: [
      "**/node_modules/**", "**/dist/**", "docs/api/**", "packs/**", "**/coverage/**",
      // generated files (their generators are checked instead)
      "packages/blosc/src/wasm/*.generated.ts", "packages/meta/src/generated/**",
      "tools/remote-tests/artifacts/**",
      // a consumer program type-checked by pack-check against the installed tarballs, not the workspace
      "tools/pack-check/consumer/**",
      "**/*.d.mts",
    ],
  },
  // Untyped scripts: the core recommended rules.
  {
    files: ["**/*.mjs", "**/*.js", "**/*.cjs"],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: nodeGlobals },
  },
  // TypeScript: typescript-eslint's recommendedTypeChecked (floating and misused promises, unsafe
  // any, needless assertions, …). Not strictTypeChecked: its no-unnecessary-condition flags the
  // public API's run-time checks of arguments from JavaScript callers (mode, formatVersion, option
  // types), which the types call impossible but the API documents and tests.
  // Types come from one program, tsconfig.eslint.json (every source and test, workspace imports
  // resolved to sources through the "development" condition as vitest does), instead of
  // projectService's program per package: no build needed first, and 35 s instead of 2.5 min on
  // two shared cores.
  {
    files: ["**/*.ts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: ["./tsconfig.eslint.json"], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Stores, codecs and test doubles implement async interfaces with `async` methods that may not
      // await: `async` is what turns their throws into rejections, which callers rely on.
      "@typescript-eslint/require-await": "off",
      // Parameters and destructured names starting with "_" are deliberately unused (interface
      // shapes, rest-omission of fields).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true }],
      // Rejections pass on what was caught (a worker's error, an AbortSignal's reason) unchanged,
      // as fetch does; those values are typed any/unknown. Literal non-Error rejections stay errors.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingAny: true, allowThrowingUnknown: true }],
      // Escaping control characters (CLI output, test expectations) needs them in character classes.
      "no-control-regex": "off",
    },
  },
  // The bench's tests import its plain-JavaScript report modules (tools/bench/lib/*.mjs, no type
  // declarations, imported under @ts-expect-error): their values are `any` by design there.
  {
    files: ["tools/bench/test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  // The corpus generators name cases and pick rules from JSON values with String(); the values
  // there are always scalars, and another conversion could rename committed corpus cases.
  {
    files: ["conformance/generators/**/*.ts"],
    rules: { "@typescript-eslint/no-base-to-string": "off" },
  },
);
