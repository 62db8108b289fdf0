import { DAY_MS } from '../../domain/time.js';
import type { DayCount } from '../../services/stats.js';
import { type Column, DataTable } from './data-table.js';

// The plot's own units: stretched to the chart's width and the stylesheet's height (preserveAspectRatio none),
// so the labels are HTML around it and stay readable at any width.
const WIDTH = 600;
const HEIGHT = 160;
const BAR_SHARE = 0.7;

// Made at the first chart, not when the module loads: the two formats cost a server that never
// draws one 8 MB of resident memory (ICU's data for them, measured for issue 44).
let formats: { day: Intl.DateTimeFormat; number: Intl.NumberFormat } | undefined;
const dayLabel = { format: (date: Date) => chartFormats().day.format(date) };
const number = { format: (n: number) => chartFormats().number.format(n) };

function chartFormats(): { day: Intl.DateTimeFormat; number: Intl.NumberFormat } {
  if (!formats)
    formats = { day: new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }), number: new Intl.NumberFormat('en-US') };
  return formats;
}

/** "24 Nov": a chart's day (days since 1970-01-01, UTC). */
export function formatDay(day: number): string {
  return dayLabel.format(new Date(day * DAY_MS));
}

/**
 * The top of the scale: the busiest day rounded up to a near round number, even, so that the middle
 * line is whole too (12 for 11, 30 for 23, 160 for 150).
 */
export function scaleTop(max: number): number {
  if (max <= 10) return Math.max(2, Math.ceil(max / 2) * 2);
  const power = 10 ** Math.floor(Math.log10(max));
  const step = max < 2 * power ? power / 5 : power;
  return Math.ceil(max / step) * step;
}

/** What the chart says in one sentence: the totals, and the busiest day. Also the image's description for screen readers. */
export function describeDays(days: DayCount[]): string {
  const accepted = days.reduce((sum, d) => sum + d.accepted, 0);
  const spam = days.reduce((sum, d) => sum + d.spam, 0);
  if (accepted + spam === 0) return `No submissions in the last ${days.length} days.`;
  const busiest = days.reduce((best, d) => (d.accepted + d.spam > best.accepted + best.spam ? d : best));
  return `${number.format(accepted)} accepted and ${number.format(spam)} spam in the last ${days.length} days; busiest day ${formatDay(busiest.day)} with ${number.format(busiest.accepted + busiest.spam)}.`;
}

interface DailyChartProps {
  days: DayCount[];
  /** Unique on the page: the ids of the chart's parts start with it. */
  id: string;
  /** What is counted, for the image's name: "all forms of Acme", "Contact". */
  subject: string;
}

/**
 * Submissions per day as stacked bars: accepted solid, spam hatched above it (told apart by the
 * pattern and the legend, not by colour alone). Server-rendered SVG coloured by the stylesheet, so
 * it follows light and dark; screen readers get a name and a one-sentence description, and
 * everyone can open the numbers as a table.
 */
export function DailyChart({ days, id, subject }: DailyChartProps) {
  const top = scaleTop(Math.max(0, ...days.map((d) => d.accepted + d.spam)));
  const slot = WIDTH / days.length;
  const barWidth = slot * BAR_SHARE;
  const y = (n: number) => (n / top) * HEIGHT;
  const hatch = `${id}-spam`;
  const ticks = [0, Math.floor(days.length / 3), Math.floor((2 * days.length) / 3), days.length - 1].map((i) => days[i]!);
  return (
    <figure class="chart">
      <p class="chart-summary" id={`${id}-summary`}>
        {describeDays(days)}
      </p>
      <ul class="chart-legend">
        <li>
          <LegendSwatch kind="accepted" id={id} /> Accepted
        </li>
        <li>
          <LegendSwatch kind="spam" id={id} /> Spam (hatched)
        </li>
      </ul>
      <div class="chart-body">
        <div class="chart-y" aria-hidden="true">
          <span>{number.format(top)}</span>
          <span>{number.format(top / 2)}</span>
          <span>0</span>
        </div>
        <svg
          class="chart-plot"
          role="img"
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          preserveAspectRatio="none"
          aria-labelledby={`${id}-title`}
          aria-describedby={`${id}-summary`}
        >
          <title id={`${id}-title`}>{`Submissions per day, last ${days.length} days: ${subject}`}</title>
          <defs>
            <pattern id={hatch} patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
              <rect class="chart-spam-fill" width="6" height="6" />
              <line class="chart-spam-line" x1="0" y1="0" x2="0" y2="6" />
            </pattern>
          </defs>
          {[0, 0.5, 1].map((f) => (
            <line key={f} class="chart-grid" x1="0" x2={WIDTH} y1={HEIGHT - f * HEIGHT} y2={HEIGHT - f * HEIGHT} vector-effect="non-scaling-stroke" />
          ))}
          {days.map((d, i) => {
            const x = i * slot + (slot - barWidth) / 2;
            const accepted = y(d.accepted);
            const spam = y(d.spam);
            return (
              <g key={d.day}>
                <title>{`${formatDay(d.day)}: ${d.accepted} accepted, ${d.spam} spam`}</title>
                {d.accepted > 0 && <rect class="chart-accepted" x={x} width={barWidth} y={HEIGHT - accepted} height={accepted} />}
                {d.spam > 0 && <rect class="chart-spam" x={x} width={barWidth} y={HEIGHT - accepted - spam} height={spam} fill={`url(#${hatch})`} />}
              </g>
            );
          })}
        </svg>
        <div class="chart-x" aria-hidden="true">
          {ticks.map((d) => (
            <span key={d.day}>{formatDay(d.day)}</span>
          ))}
        </div>
      </div>
      <details class="chart-numbers">
        <summary>Show the numbers</summary>
        <DataTable label={`Submissions per day: ${subject}`} columns={NUMBER_COLUMNS} rows={[...days].reverse()} rowKey={(d) => String(d.day)} stack={false} />
      </details>
    </figure>
  );
}

// a narrow table (three short columns): it fits a phone as it is, no stacking
const NUMBER_COLUMNS: Column<DayCount>[] = [
  { label: 'Day (UTC)', rowHeader: true, cell: (d) => formatDay(d.day) },
  { label: 'Accepted', cell: (d) => number.format(d.accepted) },
  { label: 'Spam', cell: (d) => number.format(d.spam) },
];

/** The legend's sample of a bar: the same fill as the chart's (its own pattern, so it stands alone). */
function LegendSwatch({ kind, id }: { kind: 'accepted' | 'spam'; id: string }) {
  return (
    <svg class="chart-swatch" viewBox="0 0 14 14" aria-hidden="true">
      {kind === 'spam' && (
        <pattern id={`${id}-legend-spam`} patternUnits="userSpaceOnUse" width="4" height="4" patternTransform="rotate(45)">
          <rect class="chart-spam-fill" width="4" height="4" />
          <line class="chart-spam-line" x1="0" y1="0" x2="0" y2="4" />
        </pattern>
      )}
      <rect class={`chart-${kind}`} width="14" height="14" fill={kind === 'spam' ? `url(#${id}-legend-spam)` : undefined} />
    </svg>
  );
}

/**
 * A form's last 30 days in a line's height: one bar per day (accepted and spam together), for the
 * forms list. Its name says the totals; the table's columns hold the exact numbers.
 */
export function Sparkline({ days }: { days: DayCount[] }) {
  const top = Math.max(1, ...days.map((d) => d.accepted + d.spam));
  const accepted = days.reduce((sum, d) => sum + d.accepted, 0);
  const spam = days.reduce((sum, d) => sum + d.spam, 0);
  const slot = 60 / days.length;
  return (
    <svg
      class="sparkline"
      role="img"
      viewBox="0 0 60 20"
      preserveAspectRatio="none"
      aria-label={`Last ${days.length} days: ${accepted} accepted, ${spam} spam`}
    >
      <line class="chart-grid" x1="0" x2="60" y1="20" y2="20" vector-effect="non-scaling-stroke" />
      {days.map((d, i) => {
        const total = d.accepted + d.spam;
        if (total === 0) return null;
        const height = Math.max(1, (total / top) * 20);
        return <rect key={d.day} class="chart-accepted" x={i * slot + slot * 0.15} width={slot * 0.7} y={20 - height} height={height} />;
      })}
    </svg>
  );
}
