import uPlot from 'uplot';

interface Stats {
  minutes: number[];
  answers: { '2xx': number[]; '4xx': number[]; '5xx': number[] };
  latency: { p50: (number | null)[]; p99: (number | null)[] };
}

const refreshMs = 30_000;

/** `19:04` (24-hour UTC), the tables' time format, from seconds. */
const hhmm = (seconds: number): string => new Date(seconds * 1000).toISOString().slice(11, 16);

/** The page's own text and line colours (light or dark), for the canvas, which cannot read CSS. */
function inkOf(): { text: string; grid: string } {
  const style = getComputedStyle(document.body);
  return { text: style.color, grid: style.getPropertyValue('--line').trim() || '#d1d9e0' };
}

function options(kind: string, width: number): uPlot.Options {
  const ink = inkOf();
  const time: uPlot.Series = { value: (_u, v) => (v === null ? '—' : `${hhmm(v)} UTC`) };
  const series: uPlot.Series[] =
    kind === 'answers'
      ? [time, { label: '2xx', stroke: '#1a7f37' }, { label: '4xx', stroke: '#9a6700' }, { label: '5xx', stroke: '#cf222e' }]
      : [
          time,
          { label: 'p50 ms', stroke: '#0969da', points: { show: true } },
          { label: 'p99 ms', stroke: '#8250df', points: { show: true } },
        ];
  return {
    width,
    height: 180,
    series,
    axes: [
      { values: (_u, splits) => splits.map(hhmm), stroke: ink.text, grid: { stroke: ink.grid }, ticks: { stroke: ink.grid } },
      { label: kind === 'answers' ? 'per minute' : 'ms', stroke: ink.text, grid: { stroke: ink.grid }, ticks: { stroke: ink.grid } },
    ],
    legend: { live: false },
  };
}

function data(kind: string, stats: Stats): uPlot.AlignedData {
  return kind === 'answers'
    ? [stats.minutes, stats.answers['2xx'], stats.answers['4xx'], stats.answers['5xx']]
    : [stats.minutes, stats.latency.p50, stats.latency.p99];
}

/** Draws the charts (uPlot, bundled: no CDN) and refreshes them every 30 s. */
export function drawCharts(containers: HTMLElement[]): void {
  if (containers.length === 0) return;
  const plots = new Map<HTMLElement, uPlot>();
  const src = containers[0]!.dataset['src'];
  if (src === undefined) return;
  const refresh = async () => {
    let stats: Stats;
    try {
      const response = await fetch(src, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (!response.ok) return;
      stats = (await response.json()) as Stats;
    } catch {
      return;
    }
    for (const container of containers) {
      const kind = container.dataset['chart'] ?? 'answers';
      const plot = plots.get(container);
      if (plot) plot.setData(data(kind, stats));
      else plots.set(container, new uPlot(options(kind, Math.max(280, container.clientWidth || 480)), data(kind, stats), container));
    }
  };
  void refresh();
  setInterval(() => void refresh(), refreshMs);
}
