// What a start that loads the config needs: the config loader, and the catalog and ToolSearch
// description from config + cache. Imported on first need, so a start from the start record (nothing
// changed) neither loads nor compiles it before Pi's first model request.

export { readSession } from '../../actors/describe-session.ts';
export { loadConfig } from '../../config/load.ts';
