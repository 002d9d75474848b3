// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";

  // Copy buttons: copy the named field and say so, for sighted and screen-reader users alike.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var field = document.getElementById(button.getAttribute("data-copy"));
    field.select();
    var done = function () { button.textContent = "Copied"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });

  // Forms that ask before doing something that cannot be undone.
  document.addEventListener("submit", function (event) {
    var question = event.target.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  });

  // A list's live progress: poll its JSON twice a second until it has finished.
  function watch(box) {
    var url = box.getAttribute("data-progress-url");
    var bar = box.querySelector("progress");
    var set = function (name, value) {
      var el = box.querySelector("[data-field=" + name + "]");
      if (el) el.textContent = value;
    };
    var tick = function () {
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (job) {
          bar.max = Math.max(job.total, 1);
          bar.value = job.processed;
          set("percent", job.percent + "%");
          set("processed", job.processed);
          set("total", job.total);
          set("valid", job.counts.valid);
          set("warning", job.counts.warning);
          set("invalid", job.counts.invalid);
          set("status", job.status);
          set("eta", job.eta);
          if (job.finished) {
            box.querySelectorAll("[data-when-finished]").forEach(function (el) { el.hidden = false; });
            box.querySelectorAll("[data-while-running]").forEach(function (el) { el.hidden = true; });
          } else {
            window.setTimeout(tick, 500);
          }
        })
        .catch(function () { window.setTimeout(tick, 2000); });
    };
    tick();
  }
  // The main navigation scrolls sideways on a phone: the current page's item is brought into view, and
  // data-more names the side(s) with more items, which the stylesheet fades out to show there is more.
  function navigation(nav) {
    var mark = function () {
      var more = [];
      if (nav.scrollLeft > 1) more.push("before");
      if (nav.scrollLeft + nav.clientWidth < nav.scrollWidth - 1) more.push("after");
      nav.setAttribute("data-more", more.join(" "));
    };
    var current = nav.querySelector("[aria-current=page]");
    var showCurrent = function () {
      if (!current) return;
      var start = current.offsetLeft, end = start + current.offsetWidth;
      if (start < nav.scrollLeft || end > nav.scrollLeft + nav.clientWidth) {
        nav.scrollLeft = start - (nav.clientWidth - current.offsetWidth) / 2;
      }
    };
    showCurrent();
    mark();
    nav.addEventListener("scroll", mark, { passive: true });
    window.addEventListener("resize", function () { showCurrent(); mark(); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-progress-url]").forEach(watch);
    var nav = document.querySelector("nav.nav");
    if (nav) navigation(nav);
  });
})();
