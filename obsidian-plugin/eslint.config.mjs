// The lint the community plugin review runs: eslint-plugin-obsidianmd's
// recommended configuration, with none of its rules turned off.
import obsidianmd from "eslint-plugin-obsidianmd";

export default [
  ...obsidianmd.configs.recommended,
  {
    files: ["src/**/*.ts"],
    languageOptions: {
      parserOptions: {
        project: "./tsconfig.json",
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    ignores: ["node_modules/**", "main.js", "eslint.config.mjs", "test/**"],
  },
];
