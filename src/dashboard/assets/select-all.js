// "Select all on this page": the box ticks and unticks the rows' boxes of its form, and is unticked
// when a row is. Without script the box still works: the server then takes every row of the page.
for (const all of document.querySelectorAll('input[data-select-all]')) {
  const rows = () => [...all.form.querySelectorAll(`input[type=checkbox][name="${all.dataset.selectAll}"]`)];
  all.addEventListener('change', () => {
    for (const box of rows()) box.checked = all.checked;
  });
  for (const box of rows()) {
    box.addEventListener('change', () => {
      all.checked = rows().every((b) => b.checked);
    });
  }
}
