import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const data = JSON.parse(document.getElementById('sdrs-data').textContent);
const $ = (id) => document.getElementById(id);
$('heading').textContent = data.title;

// `#t=first`, `#t=last` or `#t=<seconds>`: start paused at that time (deterministic screenshots);
// `contacts=off` starts with the contact forces hidden; `follow=off` with the camera still.
const fragment = new URLSearchParams(location.hash.slice(1));
const fixed = fragment.get('t');
if (fragment.get('contacts') === 'off') $('contacts').checked = false;

const stage = $('stage');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
stage.prepend(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xe8ecf1);
scene.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 2.0);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
const controls = new OrbitControls(camera, renderer.domElement);

const actions = [];
let mixer = null, duration = 0, time = 0, playing = fixed === null, last = null, gltfRoot = null;

function resize() {
  const w = stage.clientWidth, h = stage.clientHeight;
  renderer.setSize(w, h);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);

// Clips play once and clamp, so that seeking to the last key shows it (a repeating clip wraps to 0).
function seek(t) {
  time = Math.min(Math.max(t, 0), duration);
  if (mixer) {
    for (const action of actions) {
      action.enabled = true;
      action.paused = false;
      action.time = time;
    }
    mixer.update(0);
  }
  $('time').value = time;
  $('clock').textContent = time.toFixed(2) + ' s';
}

// Frame the scene: the box bounding the bodies over the whole motion. Parts that never move
// and are far larger than what moves (the ground slab) are left out, so a robot on a 40 m
// ground is not a speck. When the bodies travel far beyond their own size (a walker crossing
// a slope), the camera follows them instead: it frames the moving bodies as they are at one
// instant and moves with their centre ("follow"; `#follow=off` starts without).
let movingParts = [], grid = null, cell = 0, lows = [], groundTop = null, groundMargin = 0;
// The grid's height for bodies whose lowest point is at `low`: on the ground's top face when
// that point is level with it (see `frame`).
const onGround = (low) =>
  (groundTop !== null && Math.abs(low - groundTop) < groundMargin ? Math.max(low, groundTop) : low);
function frame(root) {
  // Bodies only: the contact-force bars come and go with the forces.
  const inContact = (o) => o !== null && (o.name.startsWith('contact') || inContact(o.parent));
  const parts = [];
  root.traverse((o) => { if (o.isMesh && !inContact(o)) parts.push(o); });
  const samples = [];
  for (let i = 0; i <= 10; i++) {
    seek(duration * i / 10);
    root.updateMatrixWorld(true);
    // Boxes of the vertices themselves: a rotated part's box from its local box is loose, and
    // a lying limb's loose box dips below the ground it rests on, hiding the grid under it.
    samples.push(parts.map((part) => new THREE.Box3().setFromObject(part, true)));
  }
  const moving = parts.map((part, k) => samples.some((boxes) => !boxes[k].equals(samples[0][k])));
  const spans = parts.map((part, k) => samples.reduce((b, boxes) => b.union(boxes[k]), new THREE.Box3()));
  const diagonal = (b) => (b.isEmpty() ? 0 : b.getSize(new THREE.Vector3()).length());
  const motion = new THREE.Box3();
  parts.forEach((part, k) => { if (moving[k]) motion.union(spans[k]); });
  // The moving bodies' own size: the largest box they fill at one instant.
  const body = Math.max(0, ...samples.map((boxes) =>
    diagonal(boxes.reduce((b, box, k) => (moving[k] ? b.union(box) : b), new THREE.Box3()))));
  movingParts = parts.filter((part, k) => moving[k]);
  // The moving bodies' lowest point at each sample time (the grid's height when following).
  lows = samples.map((boxes) => Math.min(...boxes.filter((box, k) => moving[k]).map((box) => box.min.y)));
  const following = body > 0 && diagonal(motion) > 4 * body;
  $('follow-label').hidden = !following;
  $('follow').checked = following && fragment.get('follow') !== 'off';
  const reach = motion.isEmpty() ? Infinity : 5 * diagonal(motion);
  const box = motion.clone();
  parts.forEach((part, k) => {
    if (!moving[k] && diagonal(spans[k]) <= reach) box.union(spans[k]);
  });
  if (box.isEmpty()) parts.forEach((part, k) => box.union(spans[k]));
  const center = box.getCenter(new THREE.Vector3());
  const size = box.getSize(new THREE.Vector3());
  // Following, the view spans about three body sizes around the bodies.
  const close = $('follow').checked;
  const radius = close ? 1.5 * body : Math.max(size.length() / 2, 1e-3);
  const dist = 1.15 * radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2));
  camera.position.copy(center).add(new THREE.Vector3(0.35, 0.6, 1).normalize().multiplyScalar(dist));
  camera.near = dist / 100;
  camera.far = dist * 100 + diagonal(box);
  camera.updateProjectionMatrix();
  controls.target.copy(center);
  controls.update();
  sun.position.copy(center).add(new THREE.Vector3(radius, 3 * radius, 2 * radius));
  sun.target.position.copy(center);
  scene.add(sun.target);
  if (close) {
    // A grid of body-sized cells that moves with the bodies a whole cell at a time, so that it
    // looks fixed to the ground and shows the motion. It ends in front of the camera: lines
    // that reach behind it are dropped by some renderers (SwiftShader).
    cell = Math.pow(10, Math.floor(Math.log10(body)));
    const cells = Math.max(2, Math.round(1.2 * dist / cell));
    grid = new THREE.GridHelper(cells * cell, cells, 0x8a94a3, 0xc3cad3);
  } else {
    grid = new THREE.GridHelper(4 * Math.max(size.x, size.z, radius), 20, 0x8a94a3, 0xc3cad3);
  }
  // The grid lies at the bodies' lowest point or, when a large flat fixed part (the ground
  // slab) has its top face level with that point, a hair above that face: a body resting on
  // the slab can dip into it by the contact's gap, and the slab's face would hide a grid there.
  groundTop = null;
  groundMargin = 0.05 * radius;
  parts.forEach((part, k) => {
    const s = spans[k];
    const flat = s.max.y - s.min.y < 0.1 * diagonal(s);
    if (!moving[k] && diagonal(s) > reach && flat && Math.abs(s.max.y - box.min.y) < groundMargin) {
      groundTop = Math.max(groundTop ?? -Infinity, s.max.y + 1e-3 * radius);
    }
  });
  grid.position.set(center.x, onGround(box.min.y), center.z);
  scene.add(grid);
}

// Following: shift the camera, its target and the sun with the moving bodies' centre, so that
// the viewing direction and distance the user chose stay; the grid of body-sized cells goes
// with them in whole cells, at the lowest point they reach within a tenth of the run of now
// (a hop does not lift it; a slope does, slowly).
function track() {
  if (!$('follow').checked || movingParts.length === 0) return;
  gltfRoot.updateMatrixWorld(true);
  const box = new THREE.Box3();
  for (const part of movingParts) box.union(new THREE.Box3().setFromObject(part, true));
  const shift = box.getCenter(new THREE.Vector3()).sub(controls.target);
  for (const v of [camera.position, controls.target, sun.position, sun.target.position]) v.add(shift);
  if (cell > 0) {
    const snap = (x) => Math.round(x / cell) * cell;
    const i = duration > 0 ? Math.round(10 * time / duration) : 0;
    const low = Math.min(...lows.slice(Math.max(i - 1, 0), i + 2));
    grid.position.set(snap(controls.target.x), onGround(low), snap(controls.target.z));
  }
}

function render(now) {
  if (last !== null && playing && duration > 0) {
    const speed = parseFloat($('speed').value);
    let t = time + (now - last) / 1000 * speed;
    if (t > duration) t = 0;
    seek(t);
  }
  track();
  last = now;
  controls.update();
  renderer.render(scene, camera);
  requestAnimationFrame(render);
}

// The y axis's end labels: 3 significant digits, more while they would read the same for
// different values (a loss that falls from 2.3775 to 2.3774 is not labelled 2.38 at both ends).
function rangeLabels(low, high) {
  let digits = 3;
  while (digits < 15 && low !== high && low.toPrecision(digits) === high.toPrecision(digits)) digits += 1;
  return [low.toPrecision(digits), high.toPrecision(digits)];
}

function plot(svg, points) {
  const ns = 'http://www.w3.org/2000/svg';
  const finite = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const add = (tag, attrs, text) => {
    const el = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    svg.appendChild(el);
  };
  // A run without this series (a plain simulation has no loss) shows no empty box for it.
  if (finite.length === 0) {
    svg.style.display = 'none';
    svg.previousElementSibling.style.display = 'none';
    return;
  }
  const xs = finite.map((p) => p[0]), ys = finite.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const sx = (x) => 36 + (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5) * 196;
  const sy = (y) => 128 - (y1 > y0 ? (y - y0) / (y1 - y0) : 0.5) * 116;
  add('line', { x1: 36, y1: 128, x2: 232, y2: 128, stroke: '#99a' });
  add('line', { x1: 36, y1: 12, x2: 36, y2: 128, stroke: '#99a' });
  const [low, high] = rangeLabels(y0, y1);
  add('text', { x: 2, y: 16, 'font-size': 9, fill: '#555', class: 'y-high' }, high);
  add('text', { x: 2, y: 128, 'font-size': 9, fill: '#555', class: 'y-low' }, low);
  add('text', { x: 36, y: 139, 'font-size': 9, fill: '#555' }, String(x0));
  add('text', { x: 232, y: 139, 'font-size': 9, fill: '#555', 'text-anchor': 'end' }, String(x1));
  add('polyline', { points: finite.map(([x, y]) => `${sx(x)},${sy(y)}`).join(' '), fill: 'none', stroke: '#2a6fdb', 'stroke-width': 1.5 });
}
plot($('loss'), data.loss);
plot($('steps'), data.step_ms.map((ms, i) => [i, ms]));

$('play').addEventListener('click', () => {
  playing = !playing;
  $('play').textContent = playing ? 'Pause' : 'Play';
});
$('time').addEventListener('input', (e) => { playing = false; $('play').textContent = 'Play'; seek(parseFloat(e.target.value)); });

let contactNodes = [];
$('contacts').addEventListener('change', (e) => { for (const n of contactNodes) n.visible = e.target.checked; });

function fail(message) {
  $('error').textContent = 'Could not show the scene: ' + message;
  document.documentElement.dataset.ready = 'error';
}

const bytes = Uint8Array.from(atob(data.glb), (c) => c.charCodeAt(0));
resize();
new GLTFLoader().parse(bytes.buffer, '', (gltf) => {
  scene.add(gltf.scene);
  gltfRoot = gltf.scene;
  mixer = new THREE.AnimationMixer(gltf.scene);
  for (const clip of gltf.animations) {
    const action = mixer.clipAction(clip);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    actions.push(action);
    duration = Math.max(duration, clip.duration);
  }
  gltf.scene.traverse((n) => { if (n.name.startsWith('contact')) contactNodes.push(n); });
  for (const n of contactNodes) n.visible = $('contacts').checked;
  $('time').max = duration;
  frame(gltf.scene);
  $('play').textContent = playing ? 'Pause' : 'Play';
  seek(fixed === 'last' ? duration : fixed === 'first' || fixed === null ? 0 : parseFloat(fixed) || 0);
  track();
  controls.update();
  renderer.render(scene, camera);
  document.documentElement.dataset.ready = '1';
  requestAnimationFrame(render);
}, (err) => fail(String(err && err.message || err)));
