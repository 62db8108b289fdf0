// The webhook body panel of a form's Settings page: the preview follows the typing and the choice of
// format (the form posted to the preview frame 400 ms after the last change). Without this script,
// the Preview button posts the same form to the frame.
const bodyForm = document.getElementById('webhook-body-form');
const bodyRefresh = document.getElementById('webhook-body-refresh');

if (bodyForm && bodyRefresh) {
  let timer = null;
  const previewSoon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => bodyForm.requestSubmit(bodyRefresh), 400);
  };
  bodyForm.addEventListener('input', previewSoon);
  bodyForm.addEventListener('change', previewSoon);
}
