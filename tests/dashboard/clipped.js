// Every visible element past the viewport's right edge (the outermost one only), every box whose content is
// wider than it and hidden or scrolled, every table cell whose content spills out. Read by layout.py.
() => {
  const width = document.documentElement.clientWidth;
  const name = (el) => {
    const classes = typeof el.className === "string" ? el.className.trim().split(/\s+/).filter(Boolean) : [];
    const text = (el.innerText || el.value || "").trim().slice(0, 40);
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + classes.map((c) => "." + c).join("") + ' "' + text + '"';
  };
  // The skip link waits off-screen, headings for screen readers are 1px: hidden on purpose.
  const hiddenByDesign = (el) => {
    for (let node = el; node; node = node.parentElement) {
      const box = node.getBoundingClientRect();
      if (box.right <= 0 || (box.width <= 1 && box.height <= 1)) return true;
    }
    return false;
  };
  const scrolls = (style) => ["hidden", "auto", "scroll", "clip"].includes(style.overflowX);
  const problems = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest('nav[aria-label="Main"]')) continue; // scrolls sideways on purpose, with its fade
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.display === "none" || style.visibility === "hidden" || (box.width === 0 && box.height === 0)) continue;
    if (hiddenByDesign(el)) continue;
    const parent = el.parentElement.getBoundingClientRect();
    if (box.right > width + 1 && parent.right <= width + 1) problems.push("past the screen edge: " + name(el));
    const field = ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName); // a long value scrolls inside
    const cell = ["TD", "TH"].includes(el.tagName);
    if (!field && (scrolls(style) || cell) && el.scrollWidth > el.clientWidth + 1) {
      problems.push("content cut off or scrolled: " + name(el));
    }
  }
  return problems;
}
