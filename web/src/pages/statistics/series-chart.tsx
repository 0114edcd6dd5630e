import { useEffect, useId, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
// A stylesheet file (the page's policy allows styles from the origin); uPlot sets element styles
// through the CSSOM only, never an inline <style>. Imported here, so only this lazy chunk has it.
import 'uplot/dist/uPlot.min.css';
import { type ChartLine, type StatisticsBucket, chartData, chartSummary } from './series-data';

const HEIGHT = 220;

/** Whether the page is dark now (the shell puts class `dark` on <html>), followed as it changes. */
function useDarkTheme(): boolean {
  const [dark, setDark] = useState(() => document.documentElement.classList.contains('dark'));
  useEffect(() => {
    const observer = new MutationObserver(() => setDark(document.documentElement.classList.contains('dark')));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
    return () => observer.disconnect();
  }, []);
  return dark;
}

export interface SeriesChartProps {
  title: string;
  series: readonly StatisticsBucket[];
  lines: readonly ChartLine[];
  format: (v: number) => string;
  /** A bucket's start as the table and the summary name it. */
  when: (unixSeconds: number) => string;
  /** Counts: ticks on whole numbers only (a tick at 0.3 runs says nothing). */
  integers?: boolean;
  /** The y axis's labels, when the figures' own format is too wide for it. */
  axisFormat?: (v: number) => string;
}

const INTEGER_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7];

/**
 * One uPlot chart in a figure: the canvas is an image whose accessible name sums the figures up,
 * and every figure is in a table under a disclosure, for a screen reader or a person who wants
 * the numbers.
 */
export function SeriesChart({ title, series, lines, format, when, integers = false, axisFormat }: SeriesChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  const dark = useDarkTheme();
  const titleId = useId();
  const data = useMemo(() => chartData(series, lines), [series, lines]);
  const summary = useMemo(() => `${title}: ${chartSummary(lines, data, format, when)}`, [title, lines, data, format, when]);

  useEffect(() => {
    const el = holder.current;
    if (!el || lines.length === 0) return;
    const ink = dark ? '#cbd5e1' : '#334155';
    const grid = dark ? '#334155' : '#e2e8f0';
    const axis = { stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const chart = new uPlot({
      width: Math.max(el.clientWidth, 200),
      height: HEIGHT,
      scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(1, max ?? 1) * 1.1] } },
      axes: [axis, { ...axis, size: 64, ...(integers ? { incrs: INTEGER_STEPS } : {}), values: (_u, ticks) => ticks.map((t) => (axisFormat ?? format)(t)) }],
      series: [{}, ...lines.map((line) => ({ label: line.label, stroke: line.color, width: 2, points: { show: series.length <= 60 }, spanGaps: false, value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)) }))],
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
    }, data as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(el.clientWidth, 200), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [data, lines, dark, format, axisFormat, integers, series.length]);

  return (
    <figure aria-labelledby={titleId} className="rounded border border-slate-200 p-3 dark:border-slate-800">
      <figcaption id={titleId} className="mb-2 font-medium">{title}</figcaption>
      {lines.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No runs in this range.</p>
      ) : (
        <div ref={holder} role="img" aria-label={summary} className="statistics-chart w-full" />
      )}
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer text-slate-700 dark:text-slate-300">Figures of “{title}” as a table</summary>
        <div className="mt-2 max-h-64 overflow-auto">
          <table className="w-full border-collapse text-xs">
            <caption className="sr-only">{title}</caption>
            <thead className="sticky top-0 bg-slate-100 text-left dark:bg-slate-900">
              <tr>
                <th scope="col" className="px-2 py-1">From</th>
                {lines.map((line) => <th key={line.label} scope="col" className="px-2 py-1">{line.label}</th>)}
              </tr>
            </thead>
            <tbody>
              {data[0].map((x, i) => (
                <tr key={x} className="border-t border-slate-200 dark:border-slate-800">
                  <th scope="row" className="px-2 py-0.5 text-left font-normal whitespace-nowrap">{when(x)}</th>
                  {lines.map((line, j) => {
                    const v = data[j + 1]?.[i] ?? null;
                    return <td key={line.label} className="px-2 py-0.5 tabular-nums">{v === null ? '—' : format(v)}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
