// The bridge's half that loads on first need: the config loader, the metadata cache, the catalog and
// ToolSearch description from config + cache, the log and the one redaction (the bridge makes the
// session's known secrets here, once, and hands them to the runtime). A start from the start
// record (nothing changed) neither loads nor compiles any of it before Pi's first model request; the
// published bundle keeps it out of the start module (scripts/build.mjs).

export { createCacheStore } from '../../catalog/cache.ts';
export { forgetConsent } from '../../config/consent-forget.ts';
export { loadConfig } from '../../config/load.ts';
export { consentedServers, readProjectConsent, rememberConsent } from '../../config/project-consent.ts';
export { createLogger } from '../../logger.ts';
export { SecretValues } from '../../redact/index.ts';
export { awaitsDirectTools, readSession } from '../../session/describe-session.ts';
export { redactingHost, redactResult } from '../../session/outbound.ts';
export { RegisteredTools } from '../../session/registered-tools.ts';
export { reportConfigDiagnostics } from '../../session/report-diagnostics.ts';
