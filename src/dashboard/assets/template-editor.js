// The template editor: Insert buttons put a placeholder at the cursor, the preview follows the
// typing (the form posted to the preview frame 400 ms after the last change), and an error's
// "Line N" link puts the cursor on that line. Without this script, the placeholders are text to copy
// and "Refresh preview" posts the code to the frame.
const code = document.getElementById('code');
const form = document.getElementById('template-form');
const refresh = document.getElementById('refresh-preview');
const status = document.getElementById('insert-status');

if (code && form && refresh) {
  let timer = null;
  const previewSoon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => form.requestSubmit(refresh), 400);
  };
  code.addEventListener('input', previewSoon);

  for (const button of document.querySelectorAll('button[data-insert]')) {
    button.hidden = false;
    button.addEventListener('click', () => {
      const text = button.dataset.insert;
      const start = code.selectionStart;
      code.setRangeText(text, start, code.selectionEnd, 'end');
      code.focus();
      if (status) status.textContent = `Inserted ${text}`;
      previewSoon();
    });
  }

  for (const link of document.querySelectorAll('a[data-line]')) {
    link.addEventListener('click', (event) => {
      event.preventDefault();
      const line = Number(link.dataset.line);
      const lines = code.value.split('\n');
      const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
      code.focus();
      code.setSelectionRange(start, start + (lines[line - 1] ?? '').length);
    });
  }
}
