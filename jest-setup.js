// Jest setup provided by Grafana scaffolding
import './.config/jest-setup';
import { configure } from '@testing-library/react';

// findBy* and waitFor wait up to 10 s, not 1 s: on a loaded CI machine an editor's options can take
// longer than a second to follow a keystroke. A passing wait returns as soon as its state shows.
configure({ asyncUtilTimeout: 10_000 });

// @grafana/ui's Combobox measures its options' text on a 2D canvas, which jsdom does not have (the
// generated setup stubs getContext with nothing): a context that measures 7px per character.
HTMLCanvasElement.prototype.getContext = function getContext() {
  return { font: '', measureText: (text) => ({ width: String(text).length * 7 }) };
};

// Observers jsdom lacks, which @grafana/ui's floating menus use: they observe nothing here.
class NoopObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
  takeRecords() {
    return [];
  }
}
global.IntersectionObserver = global.IntersectionObserver || NoopObserver;
global.ResizeObserver = global.ResizeObserver || NoopObserver;

// i18next (inside @grafana/ui) advertises itself on console.info when Grafana's translations start.
const consoleInfo = console.info;
console.info = (...args) => {
  if (typeof args[0] === 'string' && args[0].includes('i18next is made possible')) {
    return;
  }
  consoleInfo(...args);
};
