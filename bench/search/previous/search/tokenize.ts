/**
 * Text → terms for tool search: splits identifiers (camelCase, snake_case, kebab-case, dots, slashes),
 * folds case and accents, drops stopwords and applies a light suffix stemmer, so that "listPullRequests",
 * "list_pull_requests" and "listing pull requests" all produce the same terms.
 */

const STOPWORDS = new Set(
  (
    'a an the and or but nor of in on at to for from by with without into onto over under about as is are was ' +
    'were be been being am do does did done doing have has had having i me my mine myself we us our ours you ' +
    'your yours he him his she her hers it its they them their theirs this that these those there here what ' +
    'whats which who whom whose when where why how whether if then than so such too very just also only ' +
    'can could would should will shall may might must please pls kindly some any each every both either ' +
    'neither other another same own s t d ll m re ve etc eg ie via per vs let lets want wanna need needs ' +
    'like use using used tool tools mcp something anything thing things someone somebody way maybe really ' +
    'again still yet now currently already not no yes ok okay up'
  ).split(/\s+/),
);

export function isStopword(term: string): boolean {
  return STOPWORDS.has(term);
}

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isCombiningMark(c: number): boolean {
  return c >= 0x300 && c <= 0x36f;
}

/**
 * Splits text into lowercase words at case changes (fooBar, HTMLParser) and at every character that
 * is not a letter or digit. Accents are dropped (NFKD), other scripts are kept as words.
 */
export function splitWords(text: string): string[] {
  const source = isAscii(text) ? text : text.normalize('NFKD');
  const words: string[] = [];
  let word = '';
  let prev = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c < 128) {
      if (isLower(c) || isDigit(c)) {
        word += source[i];
      } else if (isUpper(c)) {
        const next = i + 1 < source.length ? source.charCodeAt(i + 1) : 0;
        if (word && (isLower(prev) || isDigit(prev) || (isUpper(prev) && isLower(next)))) {
          words.push(word);
          word = '';
        }
        word += String.fromCharCode(c + 32);
      } else if (word) {
        words.push(word);
        word = '';
      }
      prev = c;
      continue;
    }
    if (isCombiningMark(c)) continue;
    // Astral characters (emoji) come as surrogate pairs; test the whole code point.
    const codePoint = source.codePointAt(i)!;
    const char = String.fromCodePoint(codePoint);
    if (codePoint > 0xffff) i++;
    if (LETTER_OR_DIGIT.test(char)) {
      word += char.toLowerCase().replace(/[\u0300-\u036f]/g, '');
    } else if (word) {
      words.push(word);
      word = '';
    }
    prev = 0;
  }
  if (word) words.push(word);
  return words;
}

const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 50_000;

const VOWEL = /[aeiouy]/;

function undouble(word: string): string {
  const last = word.at(-1);
  if (word.length > 3 && last === word.at(-2) && last && !'lsz'.includes(last) && !VOWEL.test(last)) {
    return word.slice(0, -1);
  }
  return word;
}

/**
 * Words the suffix rules would damage ("news" is not the plural of "new", a "setting" is not "set"),
 * and common technical words with a short form that descriptions use interchangeably.
 */
const LEMMAS: Record<string, string> = {
  news: 'news',
  series: 'series',
  species: 'species',
  always: 'always',
  perhaps: 'perhaps',
  canvas: 'canvas',
  alias: 'alias',
  thing: 'thing',
  setting: 'setting',
  settings: 'setting',
  config: 'config',
  configs: 'config',
  configuration: 'config',
  configurations: 'config',
  configure: 'config',
  configured: 'config',
  configuring: 'config',
  information: 'info',
  documentation: 'docs',
  docs: 'docs',
  application: 'app',
  applications: 'app',
  apps: 'app',
  authentication: 'auth',
  authenticate: 'auth',
  authorization: 'auth',
  authorize: 'auth',
  repository: 'repo',
  repositories: 'repo',
  repos: 'repo',
  directories: 'directory',
  statistics: 'stats',
  statistic: 'stats',
};

function stemUncached(word: string): string {
  const lemma = LEMMAS[word];
  if (lemma !== undefined) return lemma;
  if (word.length <= 3 || /\d/.test(word) || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  // plurals
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(ss|ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('uses') && w.length > 6) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  // verb forms and a few noun suffixes
  if (w.endsWith('ing') && w.length >= 7 && VOWEL.test(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && !w.endsWith('eed') && w.length >= 6 && VOWEL.test(w.slice(0, -2)))
    w = undouble(w.slice(0, -2));
  else if (/[ts]ion$/.test(w) && w.length >= 7) w = w.slice(0, -3);
  else if (w.endsWith('ment') && w.length >= 9) w = w.slice(0, -4);
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

/** A light, deterministic suffix stemmer (plurals, -ing, -ed, -ion, -ment, final e). */
export function stem(word: string): string {
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    stemmed = stemUncached(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(word, stemmed);
  }
  return stemmed;
}

/** A word worth indexing or searching for: not a stopword, and not a lone ASCII letter or digit. */
export function isContentWord(word: string): boolean {
  if (STOPWORDS.has(word)) return false;
  return word.length > 1 || word.charCodeAt(0) > 127;
}

/** Words → stemmed content terms, keeping order (phrases are detected on the result). */
export function toTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    if (isContentWord(word)) terms.push(stem(word));
  }
  return terms;
}
