import { splitWords, stem } from './tokenize.ts';
import { wordnetRelated } from './wordnet.ts';

/**
 * Hand-written general English and software vocabulary (no product names; WordNet adds the rest, see
 * wordnet.ts). Two parts:
 * - PHRASES: multi-word expressions that become one extra term, on both the tool and the query side
 *   ("pull request" → pullrequest, "how far" → distance), so word order and spelling variants meet.
 * - GROUPS: words that stand in for one another in tool descriptions, with how strongly. A query term
 *   also searches for the other members of its groups, with the group's weight (its own word counts 1).
 * Words are written plainly; they are stemmed when the tables load.
 */

const PHRASES: Array<[string, string]> = [
  ['pull request', 'pullrequest'],
  ['merge request', 'pullrequest'],
  ['how far', 'distance'],
  ['how long', 'duration'],
  ['how many', 'count'],
  ['number of', 'count'],
  ['step by step', 'stepbystep'],
  ['log in', 'login'],
  ['sign in', 'login'],
  ['go to', 'navigate'],
  ['go back', 'back'],
  ['look up', 'lookup'],
  ['look for', 'search'],
  ['set up', 'setup'],
  ['root cause', 'rootcause'],
  ['web page', 'webpage'],
  ['web site', 'website'],
  ['screen shot', 'screenshot'],
  ['up to date', 'latest'],
  ['knowledge graph', 'knowledgegraph'],
  ['knowledge base', 'knowledgebase'],
  ['api key', 'apikey'],
  ['access token', 'apikey'],
  ['key press', 'keypress'],
  ['keyboard shortcut', 'keypress'],
  ['drag and drop', 'drag'],
  ['drop down', 'dropdown'],
  ['file system', 'filesystem'],
  ['shell command', 'command'],
  ['command line', 'command'],
  ['environment variable', 'envvar'],
  ['env var', 'envvar'],
  ['port forward', 'portforward'],
  ['read only', 'readonly'],
  ['full text', 'fulltext'],
  ['sub directory', 'subdirectory'],
  ['scale up', 'scale'],
  ['scale down', 'scale'],
  ['in depth', 'deep'],
  ['deep dive', 'deep'],
  ['at once', 'batch'],
  ['in bulk', 'batch'],
];

const GROUPS: Array<[number, string]> = [
  // --- verbs ---------------------------------------------------------------------------------------
  [0.7, 'get fetch retrieve obtain grab acquire'],
  [0.5, 'get read load view show display see inspect return lookup access open'],
  [0.7, 'read view open show display print cat'],
  [0.6, 'list enumerate browse catalog inventory index'],
  [0.45, 'list show display all every overview which exist available'],
  [0.75, 'create add new make generate insert init initialize register compose spawn'],
  [0.45, 'create post'],
  [0.45, 'create open start setup provision establish'],
  [0.8, 'delete remove drop erase destroy purge discard wipe unset rm uninstall'],
  [0.5, 'delete clear forget uninstall revoke detach archive trash'],
  [0.75, 'update edit modify change patch alter amend adjust tweak replace'],
  [0.5, 'update set replace rename configure fix correct toggle switch mark'],
  [0.7, 'write save store persist put dump'],
  [0.5, 'write append overwrite output record keep'],
  [0.8, 'search find query lookup seek locate hunt grep'],
  [0.5, 'search discover filter match scan explore look'],
  [0.75, 'run execute exec invoke launch trigger perform'],
  [0.5, 'run start call spawn fire evaluate eval kick'],
  [0.75, 'stop terminate kill halt abort cancel end quit interrupt'],
  [0.5, 'stop close shutdown exit finish pause'],
  [0.7, 'close dismiss shut hide exit'],
  [0.7, 'send post publish submit deliver broadcast'],
  [0.6, 'send post tell notify inform announce'],
  [0.5, 'send message say share ping alert write'],
  [0.75, 'reply respond answer'],
  [0.6, 'navigate goto visit browse open load url'],
  [0.7, 'click press tap push hit'],
  [0.5, 'type enter input fill write typing'],
  [0.7, 'hover mouseover'],
  [0.7, 'drag drop dragging'],
  [0.75, 'upload attach attachment'],
  [0.65, 'download export save fetch pull'],
  [0.5, 'upload push commit'],
  [0.5, 'get list'],
  [0.5, 'link connect associate relate attach'],
  [0.6, 'export import dump backup'],
  [0.7, 'move rename relocate mv transfer'],
  [0.4, 'drag move'],
  [0.6, 'copy clone duplicate fork replicate'],
  [0.6, 'compare diff difference changed'],
  [0.6, 'merge combine integrate land'],
  [0.6, 'wait until appear await sleep delay pause'],
  [0.6, 'check verify validate test ensure confirm'],
  [0.6, 'analyze analysis diagnose investigate debug examine rootcause explain troubleshoot why'],
  [0.5, 'describe explain detail details summary'],
  [0.6, 'count number total tally'],
  [0.6, 'multiple several batch bulk many simultaneously'],
  [0.6, 'compress gzip zip archive pack deflate'],
  [0.6, 'extract scrape parse pull harvest'],
  [0.6, 'scrape crawl spider'],
  [0.55, 'select choose pick option dropdown'],
  [0.6, 'emulate simulate mimic spoof fake pretend'],
  [0.6, 'resize dimension viewport width height size'],
  [0.65, 'restart reboot rollout redeploy bounce reload recycle'],
  [0.6, 'deploy install rollout ship'],
  [0.6, 'scale replica replicas autoscale'],
  [0.6, 'schedule cron recurring periodic monitor watch'],
  [0.6, 'translate convert transform transliterate'],
  [0.6, 'convert geocode encode decode'],
  [0.6, 'summarize summary digest tldr'],
  [0.6, 'approve approval accept review lgtm'],
  [0.6, 'login auth authenticate authorize signin credential'],
  [0.6, 'remember memorize note keep store save memory'],
  [0.6, 'forget delete remove'],
  [0.45, 'forget memory knowledge'],
  [0.6, 'think reason reasoning thought reflect ponder plan stepbystep sequential'],
  [0.5, 'think problem solve solving brainstorm'],
  [0.6, 'research investigate study report deep'],
  [0.5, 'research agent autonomous comprehensive'],
  [0.6, 'react reaction emoji'],
  [0.6, 'comment remark annotate annotation'],
  [0.6, 'record recording capture'],
  [0.6, 'capture take grab snap'],
  [0.6, 'log record track monitor'],
  [0.6, 'switch change select choose use'],
  [0.6, 'sum add plus total calculate arithmetic math'],
  [0.6, 'echo repeat parrot'],
  [0.6, 'ping health alive heartbeat responsive'],

  // --- things ---------------------------------------------------------------------------------------
  [0.8, 'screenshot screengrab screencap'],
  [0.7, 'screenshot picture photo'],
  [0.6, 'screenshot image capture png jpeg jpg screen'],
  [0.4, 'screenshot snapshot'],
  [0.6, 'snapshot capture dump'],
  [0.6, 'image picture photo icon png jpg jpeg svg graphic asset'],
  [0.6, 'video screencast movie recording clip'],
  [0.6, 'audio sound voice mp3 wav'],
  [0.7, 'webpage page site website web'],
  [0.6, 'tab page window'],
  [0.6, 'url link href address uri'],
  [0.6, 'internet web online'],
  [0.6, 'markdown text content html'],
  [0.6, 'console log'],
  [0.6, 'network request http xhr traffic'],
  [0.5, 'network connection bandwidth throttle throttling offline latency'],
  [0.6, 'dialog alert popup modal prompt confirm'],
  [0.6, 'dropdown select option combobox menu picker'],
  [0.6, 'form field input textbox textarea checkbox'],
  [0.6, 'button link element control widget'],
  [0.6, 'keypress key keyboard shortcut hotkey keystroke'],
  [0.6, 'performance speed fast slow trace profile profiling latency load'],
  [0.6, 'audit accessibility a11y seo score'],
  [0.6, 'javascript js script eval evaluate'],
  [0.4, 'javascript code snippet function'],
  [0.6, 'css style styles stylesheet'],
  [0.6, 'cookie storage session localstorage'],
  [0.55, 'file document'],
  [0.75, 'directory folder dir'],
  [0.45, 'directory path tree subdirectory'],
  [0.6, 'tree recursive structure hierarchy nested'],
  [0.6, 'metadata info information stat attribute modified size timestamp'],
  [0.6, 'detail details info information describe'],
  [0.6, 'pdf document'],
  [0.7, 'filesystem disk local drive'],
  [0.65, 'shell terminal command cli bash console repl prompt'],
  [0.6, 'process program task pid job app application'],
  [0.6, 'session terminal'],
  [0.6, 'envvar environment env variable variables'],
  [0.8, 'config setting preferences'],
  [0.5, 'config options'],
  [0.6, 'secret token credential password apikey key'],
  [0.8, 'repo repository'],
  [0.5, 'repo project codebase'],
  [0.7, 'issue ticket bug defect'],
  [0.45, 'issue problem incident error report'],
  [0.85, 'pullrequest pr mr'],
  [0.45, 'pullrequest merge patch change changeset propose contribution'],
  [0.6, 'commit revision changeset history'],
  [0.6, 'branch ref head'],
  [0.6, 'label tag'],
  [0.6, 'ci check checks status build pipeline passing'],
  [0.6, 'status state progress health'],
  [0.6, 'history recent latest past previous timeline newest last'],
  [0.6, 'latest newest recent current'],
  [0.6, 'release version ship shipped tag'],
  [0.6, 'message msg chat dm text post'],
  [0.6, 'channel room chat conversation'],
  [0.6, 'thread conversation replies discussion'],
  [0.55, 'user member person people account profile colleague teammate everyone staff employee'],
  [0.6, 'team group squad'],
  [0.6, 'organization org workspace company tenant'],
  [0.6, 'whoami identity me self current authenticated'],
  [0.8, 'database db'],
  [0.6, 'collection table'],
  [0.55, 'document record row entry item object'],
  [0.6, 'sql query select statement relational'],
  [0.6, 'statistics stats metrics usage'],
  [0.6, 'schema structure fields shape columns definition'],
  [0.6, 'index indexes'],
  [0.6, 'aggregate aggregation pipeline group'],
  [0.6, 'log logs output stdout stderr'],
  [0.6, 'error exception crash failure fail failing broken bug'],
  [0.6, 'kubernetes k8s kubectl kube cluster'],
  [0.6, 'pod container'],
  [0.6, 'deployment deploy app application workload'],
  [0.6, 'helm chart package'],
  [0.6, 'node machine host server vm'],
  [0.6, 'drain cordon uncordon maintenance evict'],
  [0.6, 'portforward port forward tunnel expose localhost'],
  [0.6, 'context kubeconfig cluster'],
  [0.6, 'namespace project'],
  [0.6, 'manifest yaml spec'],
  [0.6, 'docker container image'],
  [0.6, 'geocode coordinates latitude longitude lat lng gps location address'],
  [0.6, 'directions route drive driving travel commute transit walk walking trip navigate'],
  [0.6, 'distance far travel eta matrix duration'],
  [0.6, 'elevation altitude height high'],
  [0.55, 'place business restaurant shop store venue poi nearby local airport hotel cafe'],
  [0.6, 'weather forecast temperature rain'],
  [0.6, 'time date clock timezone'],
  [0.6, 'calendar event meeting appointment schedule'],
  [0.6, 'email mail inbox'],
  [0.6, 'knowledgegraph graph memory knowledge'],
  [0.55, 'observation note fact memory'],
  [0.6, 'entity node person thing concept'],
  [0.6, 'relation relationship link connection edge association'],
  [0.6, 'documentation docs doc manual reference guide'],
  [0.6, 'library package framework sdk module dependency'],
  [0.6, 'paper article publication scientific academic journal preprint'],
  [0.6, 'citation cite citing cited reference references'],
  [0.55, 'block paragraph content child children heading'],
  [0.6, 'contact company deal customer lead prospect object'],
  [0.6, 'engagement call meeting email note task activity interaction'],
  [0.6, 'property properties field attribute column'],
  [0.6, 'association associate relationship link'],
  [0.6, 'workflow automation flow'],
  [0.6, 'trace span transaction'],
  [0.6, 'replay session recording'],
  [0.6, 'feedback rating review'],
  [0.6, 'monitor watch alert'],
];

function phraseWords(phrase: string): string[] {
  return splitWords(phrase).map(stem);
}

interface PhraseRule {
  words: string[];
  term: string;
}

/** Phrases keyed by their first (stemmed) word. */
const phraseRules = new Map<string, PhraseRule[]>();
for (const [phrase, term] of PHRASES) {
  const words = phraseWords(phrase);
  const rule = { words, term: stem(term) };
  const first = words[0]!;
  const list = phraseRules.get(first) ?? [];
  list.push(rule);
  phraseRules.set(first, list);
}

/** stemmed word → (related stemmed word → weight), strongest relation kept. */
const related = new Map<string, Map<string, number>>();
for (const [weight, words] of GROUPS) {
  const stems = [...new Set(words.split(/\s+/).map((w) => stem(w)))];
  for (const a of stems) {
    let map = related.get(a);
    if (!map) {
      map = new Map();
      related.set(a, map);
    }
    for (const b of stems) {
      if (a !== b && (map.get(b) ?? 0) < weight) map.set(b, weight);
    }
  }
}

export interface PhraseMatch {
  start: number;
  /** Index after the last word of the phrase. */
  end: number;
  term: string;
}

/** Phrases in a sequence of stemmed words, left to right, longest first where they overlap. */
export function findPhrases(words: readonly string[]): PhraseMatch[] {
  const found: PhraseMatch[] = [];
  let i = 0;
  while (i < words.length) {
    let match: PhraseMatch | undefined;
    for (const rule of phraseRules.get(words[i]!) ?? []) {
      if (match && rule.words.length <= match.end - match.start) continue;
      if (rule.words.every((w, k) => words[i + k] === w))
        match = { start: i, end: i + rule.words.length, term: rule.term };
    }
    if (match) {
      found.push(match);
      i = match.end;
    } else {
      i++;
    }
  }
  return found;
}

const withWordnet = new Map<string, ReadonlyMap<string, number> | undefined>();

/** Words related to a stemmed term, with weights in (0, 1): the groups above, then WordNet synonyms. */
export function relatedTerms(term: string): ReadonlyMap<string, number> | undefined {
  if (withWordnet.has(term)) return withWordnet.get(term);
  const own = related.get(term);
  let merged: Map<string, number> | undefined = own ? new Map(own) : undefined;
  for (const [word, weight] of wordnetRelated(term)) {
    merged ??= new Map();
    if ((merged.get(word) ?? 0) < weight) merged.set(word, weight);
  }
  if (withWordnet.size > 20_000) withWordnet.clear();
  withWordnet.set(term, merged);
  return merged;
}
