// Types for scripts/launcher-paths.mjs (plain ESM so provisioning runs on Node without a TS loader).
export declare const LAUNCHER_PACKAGES: Readonly<Record<string, string>>;
export declare const repoRoot: string;
export declare const launchersDir: string;
export declare const launcherPaths: Readonly<{ deno: string; bun: string; pnpm: string; yarn: string }>;
export declare function launchersProvisioned(): boolean;
