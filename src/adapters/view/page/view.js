// gpuvis live view: pictures and state arrive over the WebSocket, settings go back. Positions are
// normalised (0..1) in table coordinates, drawn over the picture in frame pixels.
'use strict';

const canvas = document.getElementById('frame');
const ctx = canvas.getContext('2d');
const $ = (id) => document.getElementById(id);

let socket = null;
let picture = null;   // the newest picture (ImageBitmap or canvas)
let state = null;     // the newest tracked state
let settings = null;  // the settings in force, as the tracker reports them
let grid = null;      // the calibration grid
let dragging = -1;    // the grid point being dragged
let pictures = 0;     // pictures received (shown for tests and curiosity)

function connect() {
  // The token printed by `gpuvis track` when the view is open beyond this machine.
  const token = new URLSearchParams(location.search).get('token');
  socket = new WebSocket(`ws://${location.host}/ws` + (token ? `?token=${encodeURIComponent(token)}` : ''));
  socket.binaryType = 'arraybuffer';
  socket.onopen = () => { $('connection').textContent = 'connected'; $('connection').className = 'good'; };
  socket.onclose = () => {
    $('connection').textContent = 'disconnected: retrying';
    $('connection').className = 'bad';
    setTimeout(connect, 1000);
  };
  socket.onmessage = (event) => {
    if (typeof event.data === 'string') receive(JSON.parse(event.data));
    else decodePicture(event.data);
  };
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

// 5-byte header: format (1 JPEG, 2 grey, 3 RGB), width and height (little-endian 16-bit).
async function decodePicture(buffer) {
  const head = new DataView(buffer, 0, 5);
  const format = head.getUint8(0), width = head.getUint16(1, true), height = head.getUint16(3, true);
  const data = new Uint8Array(buffer, 5);
  if (format === 1) {
    picture = await createImageBitmap(new Blob([data], { type: 'image/jpeg' }));
  } else {
    const channels = format === 2 ? 1 : 3;
    const image = new ImageData(width, height);
    for (let i = 0, j = 0; i < width * height; ++i, j += channels) {
      image.data[4 * i] = data[j];
      image.data[4 * i + 1] = data[j + (channels === 3 ? 1 : 0)];
      image.data[4 * i + 2] = data[j + (channels === 3 ? 2 : 0)];
      image.data[4 * i + 3] = 255;
    }
    const c = document.createElement('canvas');
    c.width = width;
    c.height = height;
    c.getContext('2d').putImageData(image, 0, 0);
    picture = c;
  }
  ++pictures;
  canvas.dataset.pictures = pictures;
  draw();
}

function receive(m) {
  if (m.type === 'state') {
    state = m;
    showStats(m);
    draw();
  } else if (m.type === 'settings') {
    settings = m;
    showSettings(m);
  } else if (m.type === 'grid') {
    grid = m;
    $('grid-on').checked = m.on;
    draw();
  } else if (m.type === 'error' || m.type === 'notice') {
    $('message').textContent = m.message;
    $('message').className = m.type;
  }
}

function showStats(m) {
  const s = m.stats || {};
  const stages = (s.stages_us || []).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' · ');
  $('stats').textContent = s.fps === undefined ? `frame ${m.fseq}` :
    `${s.fps.toFixed(1)} fps · µs per frame: ${stages} · latency ${s.latency_us.toFixed(0)} µs (max ${s.latency_max_us.toFixed(0)})` +
    ` · dropped ${s.dropped} · frame ${m.fseq}`;
  const counts = $('counts');
  counts.textContent = `${m.objects.length} symbols · ${m.cursors.length} fingers · ${m.blobs.length} blobs · ` +
    `${m.width}×${m.height}`;
  counts.dataset.objects = m.objects.length;
  counts.dataset.cursors = m.cursors.length;
  counts.dataset.fseq = m.fseq;
}

// Controls show the tracker's values, except the one being edited.
function setValue(id, value) {
  const e = $(id);
  if (document.activeElement === e) return;
  if (e.type === 'checkbox') e.checked = value;
  else e.value = value;
}

function showSettings(m) {
  const t = m.threshold;
  setValue('method', t.method);
  setValue('bernsen-half-window', t.bernsen.half_window);
  setValue('bernsen-gate', t.bernsen.gate);
  setValue('tiled-tile', t.tiled.tile);
  setValue('tiled-gradient', t.tiled.gradient);
  setValue('br-size', t.bradley_roth.size);
  setValue('br-bias', t.bradley_roth.bias.toFixed(2));
  setValue('br-contrast', t.bradley_roth.contrast);
  for (const name of ['bernsen', 'tiled', 'bradley-roth'])
    for (const e of document.querySelectorAll(`.for-${name}`)) e.classList.toggle('hidden', name !== t.method);
  setValue('equalize', m.equalize);
  setValue('finger-size', m.fingers.size);
  setValue('finger-sensitivity', m.fingers.sensitivity);
  setValue('finger-contrast', m.fingers.contrast);
  setValue('blob-min', m.blobs.min_size);
  setValue('blob-max', m.blobs.max_size);
  setValue('obj-blob', m.blobs.object_blobs);
  setValue('cur-blob', m.blobs.finger_blobs);
  setValue('invert-x', m.invert.x);
  setValue('invert-y', m.invert.y);
  setValue('invert-angle', m.invert.angle);
  $(`display-${m.display}`).checked = true;
  $('grid-file').textContent = `${m.files.grid}${m.files.grid_exists ? '' : ' (not saved yet)'}`;
  $('settings-file').textContent = `${m.files.settings}${m.files.settings_exists ? '' : ' (new file)'}`;
  document.title = `gpuvis live view (${m.backend})`;
}

const number = (id) => Number($(id).value);

// Every control sends the whole group it belongs to; the tracker answers with the settings in force.
function sendSettings() {
  send({
    type: 'settings',
    threshold: {
      method: $('method').value,
      bernsen: { half_window: number('bernsen-half-window'), gate: number('bernsen-gate') },
      tiled: { tile: number('tiled-tile'), gradient: number('tiled-gradient') },
      bradley_roth: { size: number('br-size'), bias: number('br-bias'), contrast: number('br-contrast') },
    },
    equalize: $('equalize').checked,
    fingers: { size: number('finger-size'), sensitivity: number('finger-sensitivity'), contrast: number('finger-contrast') },
    blobs: { min_size: number('blob-min'), max_size: number('blob-max'),
             object_blobs: $('obj-blob').checked, finger_blobs: $('cur-blob').checked },
    invert: { x: $('invert-x').checked, y: $('invert-y').checked, angle: $('invert-angle').checked },
  });
}

for (const e of document.querySelectorAll('aside input:not([name=display]):not(#grid-on), aside select'))
  e.addEventListener('change', sendSettings);
for (const e of document.querySelectorAll('input[name=display]'))
  e.addEventListener('change', () => send({ type: 'settings', display: e.value }));
$('overlay').addEventListener('change', draw);
$('recapture').addEventListener('click', () => send({ type: 'recapture' }));
$('grid-on').addEventListener('change', () => send({ type: 'grid', action: $('grid-on').checked ? 'on' : 'off' }));
$('grid-reset').addEventListener('click', () => send({ type: 'grid', action: 'reset' }));
$('grid-revert').addEventListener('click', () => send({ type: 'grid', action: 'revert' }));
$('grid-save').addEventListener('click', () => {
  if (settings && settings.files.grid_exists && !confirm(`Overwrite ${settings.files.grid}?`)) return;
  send({ type: 'grid', action: 'save' });
});
$('save-settings').addEventListener('click', () => {
  if (settings && settings.files.settings_exists && !confirm(`Write these settings into ${settings.files.settings}?`)) return;
  send({ type: 'save_settings' });
});

document.addEventListener('keydown', (event) => {
  if (event.target.tagName === 'INPUT' || event.target.tagName === 'SELECT') return;
  const display = { s: 'camera', t: 'binary', r: 'undistorted' }[event.key.toLowerCase()];
  if (display) send({ type: 'settings', display });
  else if (event.key === 'e' || event.key === 'E') { $('equalize').checked = !$('equalize').checked; sendSettings(); }
  else if (event.key === ' ') { send({ type: 'recapture' }); event.preventDefault(); }
  else if (event.key === 'c' || event.key === 'C') send({ type: 'grid', action: grid && grid.on ? 'off' : 'on' });
});

// Grid point (c, r) sits where the camera sees it: ((c + dx) * cell_w, (r + dy) * cell_h).
function gridPoints() {
  if (!grid || !grid.on || !grid.gx || !settings || settings.display === 'undistorted') return [];
  const points = [];
  for (let r = 0; r < grid.gy; ++r)
    for (let c = 0; c < grid.gx; ++c) {
      const i = r * grid.gx + c, d = grid.points[i] || [0, 0];
      points.push({ i, c, r, x: (c + d[0]) * grid.cell_w, y: (r + d[1]) * grid.cell_h });
    }
  return points;
}

function framePoint(event) {
  const box = canvas.getBoundingClientRect();
  return { x: (event.clientX - box.left) * canvas.width / box.width, y: (event.clientY - box.top) * canvas.height / box.height };
}

canvas.addEventListener('pointerdown', (event) => {
  const p = framePoint(event);
  let best = -1, bestDistance = 12 * canvas.width / canvas.getBoundingClientRect().width;
  for (const g of gridPoints()) {
    const d = Math.hypot(g.x - p.x, g.y - p.y);
    if (d < bestDistance) { best = g.i; bestDistance = d; }
  }
  dragging = best;
  if (best >= 0) canvas.setPointerCapture(event.pointerId);
});
canvas.addEventListener('pointermove', (event) => {
  if (dragging < 0) return;
  const p = framePoint(event);
  const c = dragging % grid.gx, r = Math.floor(dragging / grid.gx);
  grid.points[dragging] = [p.x / grid.cell_w - c, p.y / grid.cell_h - r];
  draw();
});
canvas.addEventListener('pointerup', () => {
  if (dragging < 0) return;
  const d = grid.points[dragging];
  send({ type: 'grid', action: 'point', index: dragging, dx: d[0], dy: d[1] });
  dragging = -1;
});

function draw() {
  const width = state ? state.width : picture ? picture.width : canvas.width;
  const height = state ? state.height : picture ? picture.height : canvas.height;
  if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, width, height);
  if (picture) ctx.drawImage(picture, 0, 0, width, height);
  const scale = Math.max(1, width / 640);
  if (state && $('overlay').checked) {
    ctx.lineWidth = 2 * scale;
    ctx.font = `${13 * scale}px system-ui, sans-serif`;
    for (const b of state.blobs) {
      ctx.strokeStyle = '#5af';
      ctx.save();
      ctx.translate(b.x * width, b.y * height);
      ctx.rotate(b.angle);
      ctx.strokeRect(-b.width * width / 2, -b.height * height / 2, b.width * width, b.height * height);
      ctx.restore();
    }
    for (const o of state.objects) {
      const x = o.x * width, y = o.y * height, r = 18 * scale;
      ctx.strokeStyle = '#f44';
      ctx.beginPath();
      ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.moveTo(x, y);
      ctx.lineTo(x + r * Math.cos(o.angle), y + r * Math.sin(o.angle));
      ctx.stroke();
      label(`${o.id}`, x + r + 2, y - 2, '#f66');
      label(`s${o.session}`, x + r + 2, y + 13 * scale, '#aaa');
    }
    for (const c of state.cursors) {
      const x = c.x * width, y = c.y * height;
      ctx.strokeStyle = '#4e4';
      ctx.beginPath();
      ctx.arc(x, y, 8 * scale, 0, 2 * Math.PI);
      ctx.stroke();
      label(`f${c.id} s${c.session}`, x + 10 * scale, y - 4, '#6f6');
    }
  }
  const points = gridPoints();
  if (points.length) {
    ctx.strokeStyle = '#fc3';
    ctx.lineWidth = scale;
    ctx.beginPath();
    for (const g of points) {
      if (g.c > 0) { const l = points[g.i - 1]; ctx.moveTo(l.x, l.y); ctx.lineTo(g.x, g.y); }
      if (g.r > 0) { const u = points[g.i - grid.gx]; ctx.moveTo(u.x, u.y); ctx.lineTo(g.x, g.y); }
    }
    ctx.stroke();
    for (const g of points) {
      ctx.fillStyle = g.i === dragging ? '#fff' : '#fc3';
      ctx.beginPath();
      ctx.arc(g.x, g.y, 4 * scale, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
}

function label(text, x, y, colour) {
  ctx.fillStyle = '#000a';
  ctx.fillRect(x - 1, y - 12 * Math.max(1, canvas.width / 640), ctx.measureText(text).width + 2, 15 * Math.max(1, canvas.width / 640));
  ctx.fillStyle = colour;
  ctx.fillText(text, x, y);
}

connect();
