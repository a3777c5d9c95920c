// A tiny SVG bar-chart writer for the report: horizontal grouped bars, ours next to the references,
// value labels at the bar ends, optional log scale for ranges that span orders of magnitude.

export interface Bar {
  series: string;
  value: number;
  /** Shown after the value, e.g. "1.04×". */
  note?: string;
}

export interface BarGroup {
  label: string;
  bars: Bar[];
}

export interface BarChart {
  title: string;
  unit: string;
  groups: BarGroup[];
  log?: boolean;
  /** Draws a dashed vertical line, e.g. a target. */
  marker?: { value: number; label: string };
}

const WIDTH = 760;
const LABEL_W = 200;
const VALUE_W = 150;
const BAR_H = 16;
const BAR_GAP = 3;
const GROUP_GAP = 12;
const LEGEND_Y = 28;
const LEGEND_ROW = 16;
const PALETTE = ['#2563eb', '#9ca3af', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6'];

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toLocaleString('en-US');
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(2);
}

/** A difference in ms with its sign: "+3.10 ms", "−20.8 ms". */
export function formatDeltaMs(ms: number): string {
  return `${ms >= 0 ? '+' : '−'}${formatNumber(Math.abs(ms))} ms`;
}

/** The chart as a standalone SVG document. */
export function barChartSvg(chart: BarChart): string {
  const series = [...new Set(chart.groups.flatMap((g) => g.bars.map((b) => b.series)))];
  const color = (s: string) => PALETTE[series.indexOf(s) % PALETTE.length]!;
  const values = chart.groups
    .flatMap((g) => g.bars.map((b) => b.value))
    .filter((v) => Number.isFinite(v) && v > 0);
  if (chart.marker) values.push(chart.marker.value);
  const max = Math.max(...values, 1e-9);
  const min = Math.min(...values, max);
  const plotW = WIDTH - LABEL_W - VALUE_W;
  const logMin = Math.log10(min) - 0.3;
  const scale = (v: number): number => {
    if (!Number.isFinite(v) || v <= 0) return 0;
    if (!chart.log) return (v / max) * plotW;
    const span = Math.log10(max) - logMin;
    return span <= 0 ? plotW : Math.max(2, ((Math.log10(v) - logMin) / span) * plotW);
  };

  // Legend first: it may wrap onto several rows, which pushes the plot down.
  const legend: string[] = [];
  let lx = LABEL_W;
  let ly = LEGEND_Y;
  for (const s of series) {
    const itemW = 24 + s.length * 6.2;
    if (lx + itemW > WIDTH - 8 && lx > LABEL_W) {
      lx = LABEL_W;
      ly += LEGEND_ROW;
    }
    legend.push(
      `<rect x="${lx}" y="${ly}" width="10" height="10" fill="${color(s)}"/><text x="${lx + 14}" y="${ly + 9}" class="legend">${escapeXml(s)}</text>`,
    );
    lx += itemW;
  }
  const TOP = ly + 24;

  const parts: string[] = [];
  let y = TOP;
  for (const group of chart.groups) {
    const groupH = group.bars.length * (BAR_H + BAR_GAP) - BAR_GAP;
    parts.push(
      `<text x="${LABEL_W - 8}" y="${y + groupH / 2 + 4}" text-anchor="end" class="label">${escapeXml(group.label)}</text>`,
    );
    for (const bar of group.bars) {
      const w = scale(bar.value);
      const text = `${formatNumber(bar.value)}${chart.unit ? ` ${chart.unit}` : ''}${bar.note ? ` (${bar.note})` : ''}`;
      parts.push(
        `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${color(bar.series)}"><title>${escapeXml(`${bar.series}: ${text}`)}</title></rect>`,
        `<text x="${LABEL_W + w + 4}" y="${y + BAR_H - 4}" class="value">${escapeXml(text)}</text>`,
      );
      y += BAR_H + BAR_GAP;
    }
    y += GROUP_GAP;
  }
  const height = y + 16;
  if (chart.marker) {
    const x = LABEL_W + scale(chart.marker.value);
    parts.push(
      `<line x1="${x.toFixed(1)}" y1="${TOP - 6}" x2="${x.toFixed(1)}" y2="${y - GROUP_GAP + 2}" stroke="#dc2626" stroke-dasharray="4 3"/>`,
      `<text x="${x.toFixed(1)}" y="${y + 6}" text-anchor="middle" class="marker">${escapeXml(chart.marker.label)}</text>`,
    );
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif">`,
    '<style>.title{font-size:14px;font-weight:600}.label{font-size:12px}.value{font-size:11px;fill:#374151}.legend{font-size:11px}.marker{font-size:10px;fill:#dc2626}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="8" y="18" class="title">${escapeXml(chart.title)}${chart.log ? ' (log scale)' : ''}</text>`,
    ...legend,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
