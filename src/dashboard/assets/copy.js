// Copy buttons: a <button data-copy="id-of-element"> copies that element's text and says so.
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    const status = document.getElementById(`${button.dataset.copy}-status`);
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      if (status) status.textContent = 'Copied to the clipboard.';
    } catch {
      if (status) status.textContent = 'Could not copy; select the text and copy it.';
    }
  });
}
