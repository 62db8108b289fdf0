import type { PageText } from './page-text.js';

export const pt: PageText = {
  thanks: { title: 'Obrigado!', message: 'A sua mensagem foi recebida.' },
  formAddress: {
    title: 'Este é o endereço de um formulário',
    message: 'Este endereço recebe os envios de um formulário num site. Preencha esse formulário para enviar uma mensagem.',
  },
  onwards:
    'A sua mensagem foi recebida. O proprietário do formulário quer enviá-lo para o endereço abaixo, que este site não verificou: continue apenas se esperava ir para lá.',
  goBack: 'Voltar',
  backToForm: 'Voltar ao formulário',
  poweredBy: 'Com tecnologia Formgate',
  error: { title: 'Algo correu mal', message: 'Não foi possível processar o seu envio. Tente novamente mais tarde.' },
  errors: {
    validation_error: { title: 'Não foi possível aceitar o seu envio', message: 'Verifique o formulário e tente novamente.' },
    captcha_failed: { title: 'O CAPTCHA não foi resolvido', message: 'Resolva o CAPTCHA e envie o formulário novamente.' },
    origin_not_allowed: { title: 'Este formulário não pode ser enviado daqui', message: 'Este formulário só aceita envios do seu próprio site.' },
    not_found: { title: 'Formulário não encontrado', message: 'Este formulário não existe ou já não aceita envios.' },
    payload_too_large: { title: 'Envio demasiado grande', message: 'O envio é maior do que este formulário aceita.' },
    form_closed: { title: 'Este formulário está fechado', message: 'Este formulário não aceita envios. Nada foi guardado.' },
    quota_exceeded: { title: 'O seu envio não foi aceite', message: 'Este formulário não aceita mais envios de momento. Nada foi guardado.' },
    rate_limited: { title: 'Demasiados envios', message: 'Aguarde um pouco e tente novamente.' },
    unavailable: { title: 'Tente novamente dentro de momentos', message: 'O seu envio não foi guardado. Tente novamente em breve.' },
  },
};
