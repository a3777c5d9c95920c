// Types for scripts/mermaid-paths.mjs (plain ESM so provisioning runs on Node without a TS loader).
export declare const MERMAID_VERSION: string;
export declare const repoRoot: string;
export declare const mermaidDir: string;
export declare const mermaidPaths: Readonly<{ browserBundle: string; module: string; dompurify: string }>;
export declare function mermaidProvisioned(): boolean;
