import type { Locale } from "./locale.js";

// French typography puts a non-breaking space before ":", "?", "!" and "%".
const S = "\u00a0";

/** French phrases. */
export const fr: Locale = {
  code: "fr",
  toneLine: {
    neutral: { physical: "Commandez directement sur cette page.", service: "Réservez directement sur cette page." },
    luxury: { physical: "Faites-vous plaisir.", service: "Faites-vous plaisir." },
    budget: { physical: "Le prix, affiché clairement.", service: "Le prix, affiché clairement." },
    eco: { physical: "Choisissez en conscience.", service: "Choisissez en conscience." },
    urgency: { physical: "Commandez dès aujourd’hui.", service: "Réservez dès aujourd’hui." },
    gift: { physical: "Une idée cadeau.", service: "Une idée cadeau." },
  },
  ctaLabel: { physical: "Commander", service: "Réserver" },
  detailsTitle: "En détail",
  galleryTitle: "Autres photos",
  galleryAlt: (title, i) => `${title}, photo ${i}`,
  checkoutTitle: { physical: "Passer commande", service: "Réserver un rendez-vous" },
  submitLabel: { physical: "Valider ma commande", service: "Confirmer ma réservation" },
  footer: {
    physical: "Les coordonnées saisies dans le formulaire de commande sont transmises au vendeur avec votre commande. Aucun paiement n’est demandé sur cette page.",
    service: "Les coordonnées saisies dans le formulaire de réservation sont transmises au prestataire avec votre demande de réservation. Aucun paiement n’est demandé sur cette page.",
  },
  fieldLabels: { name: "Nom complet", phone: "Téléphone", address: "Adresse", city: "Ville", email: "E-mail", date: "Date souhaitée", notes: "Remarques" },
  ui: {
    deliveryPrice: (p) => `Livraison${S}: ${p}`,
    freeDelivery: "Livraison offerte",
    save: (p) => `Économisez ${p}${S}%`,
    requiredHint: "Les champs marqués d’un * sont obligatoires.",
    requiredMark: "obligatoire",
    choose: "Choisir…",
    previewNote: `Aperçu${S}: le formulaire est désactivé tant que la page n’est pas déployée.`,
    previewBanner: "Aperçu",
    confirmationTitle: `Merci${S}!`,
    confirmationText: {
      physical: "Nous avons bien reçu votre commande.",
      service: "Nous avons bien reçu votre demande de réservation.",
    },
    yourDetails: "Vos coordonnées",
    back: "Retour à la page",
    notFoundTitle: "Page introuvable",
    notFoundText: "Cette page n’existe pas ou n’est plus disponible.",
  },
};
