// Runs before the first paint: the saved theme choice, else (no attribute) the system's preference.
(function () {
  "use strict";
  try {
    var saved = window.localStorage.getItem("planview-web-theme");
    if (saved === "light" || saved === "dark") {
      document.documentElement.setAttribute("data-theme", saved);
    }
  } catch (e) {
    /* storage disabled: follow the system */
  }
})();
