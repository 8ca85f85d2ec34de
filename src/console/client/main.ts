// The console's only script, bundled with uPlot by esbuild at build time and served from the package.
import { drawCharts } from './charts.js';
import { followLive } from './live-rows.js';

function copyButtons(): void {
  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button.copy[data-copy]'))) {
    button.addEventListener('click', () => {
      const field = document.getElementById(button.dataset['copy'] ?? '');
      if (!(field instanceof HTMLTextAreaElement)) return;
      field.select();
      void navigator.clipboard?.writeText(field.value).then(
        () => (button.textContent = 'Copied'),
        () => undefined,
      );
    });
  }
}

function start(): void {
  for (const table of Array.from(document.querySelectorAll<HTMLTableElement>('table.deliveries[data-live]'))) followLive(table);
  drawCharts(Array.from(document.querySelectorAll<HTMLElement>('.chart[data-chart]')));
  copyButtons();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
