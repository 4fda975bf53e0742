//Gÿÿÿÿÿÿ>
  ritivmielllvemue