// Draws one violation's layout: the request beside the session log (or the
// conversation so far), a row per position, the missing, extra and moved
// messages marked, with roles, tool names and call ids but no content unless
// the app turned previews on. A plain script (see dom.ts).
/* exported picture */

type Layout = import('../../layout').Layout;
type Cell = import('../../layout').Cell;

function cellNode(side: string, cell: Cell | null): HTMLElement {
  if (!cell) {
    const none = el('div', 'cell none');
    none.dataset.side = side;
    return none;
  }
  const classes = 'cell ' + cell.mark + (cell.count > 1 && (cell.mark === 'same' || cell.mark === 'rest') ? ' run' : '');
  const node = el('div', classes);
  node.dataset.side = side;
  node.dataset.mark = cell.mark;
  node.dataset.position = String(cell.position);
  node.dataset.count = String(cell.count);
  if (cell.role) node.dataset.role = cell.role;
  const last = cell.position + cell.count - 1;
  const where = cell.count > 1 ? '#' + cell.position + '–' + last : '#' + cell.position;
  let label: string;
  if (cell.count > 1 && (cell.mark === 'extra' || cell.mark === 'missing')) label = where + ' · ' + cell.count + ' more ' + cell.mark;
  else if (cell.count > 1) label = where + ' · ' + cell.count + ' messages' + (cell.mark === 'same' ? ' that match' : '');
  else label = where + (cell.role ? ' ' + cell.role : '') + (cell.mark === 'same' ? ' · matches' : '');
  node.appendChild(el('span', '', label));
  if (cell.toolName || cell.toolCallId) {
    const tool = [cell.toolName || '', cell.toolCallId ? 'call id ' + cell.toolCallId : ''].filter(Boolean);
    node.appendChild(el('span', 'tool', tool.join(' · ')));
  }
  if (cell.mark === 'missing' || cell.mark === 'extra' || cell.mark === 'moved') node.appendChild(el('span', 'mark', cell.mark));
  if (cell.preview) node.appendChild(el('span', 'preview', cell.preview));
  return node;
}

function picture(layout: Layout): HTMLElement {
  const box = el('div');
  const grid = el('div', 'picture');
  grid.setAttribute('role', 'table');
  grid.setAttribute('aria-label', 'the request beside the ' + layout.logTitle);
  grid.appendChild(el('h3', '', 'request (' + layout.requestLength + ' messages)'));
  grid.appendChild(el('h3', '', layout.logTitle + ' (' + layout.logLength + ' messages)'));
  layout.rows.forEach((row) => {
    grid.appendChild(cellNode('request', row.request));
    grid.appendChild(cellNode('log', row.log));
  });
  box.appendChild(grid);
  const notes = el('ul', 'notes');
  layout.notes.forEach((n) => notes.appendChild(el('li', '', n)));
  box.appendChild(notes);
  return box;
}
