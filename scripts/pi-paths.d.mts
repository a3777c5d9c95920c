// Types for scripts/pi-paths.mjs (plain ESM so provisioning runs on Node without a TS loader).
export declare const PI_VERSIONS: Readonly<{
  pi: string;
  node: string;
  jiti: string;
  typebox: string;
  conformance: string;
}>;
export declare function nodePackageName(platform?: string, arch?: string): string | undefined;
export declare const repoRoot: string;
export declare const piCacheDir: string;
export declare const piMarkerPath: string;
export declare const piPackageDir: string;
export declare const piCliPath: string;
export declare const node22Path: string;
export declare const conformanceCliPath: string;
export declare function expectedMarker(): { versions: typeof PI_VERSIONS; nodePackage: string | null };
export declare function isPiProvisioned(): boolean;
